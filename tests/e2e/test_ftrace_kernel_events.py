"""End-to-end: ftrace events Perfetto turns into slices and threads beyond
the scheduler's: signal_generate / signal_deliver slices, binder locks
that were never waited for, sched_process_free of an unknown thread, and
the workqueue slice's cpu arg. Each expected answer is Perfetto's
trace_processor_shell's on the same trace."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SIGNAL_DELIVER, SIGNAL_GENERATE, BINDER_LOCKED, BINDER_UNLOCK = 324, 325, 54, 55
SCHED_PROCESS_FREE, WORKQUEUE_EXECUTE_START = 240, 58


def event(ts, pid, number, body):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(number, body))


def bundle(cpu, *events):
    return pb_packet(pb_bytes(1, pb_int(1, cpu) + b''.join(events)), pb_int(10, 1))


TREE = pb_packet(pb_bytes(2, pb_bytes(1, pb_int(1, 10) + pb_int(2, 1) + pb_bytes(3, 'app')) +
                          pb_bytes(2, pb_int(1, 11) + pb_int(3, 10) + pb_bytes(2, 't11'))))


class FtraceKernelEventsTest(e.TempDirTest):
    def run_query(self, data, sql):
        return e.query(sql, e.write_temp(self.dir, 'trace.pb', data))

    def test_signals_are_slices_on_the_target_and_the_delivering_thread(self):
        data = TREE + bundle(0, event(1000, 11, SIGNAL_GENERATE,
                                      pb_int(1, 0) + pb_bytes(2, 'victim') + pb_int(3, 1) +
                                      pb_int(4, 20) + pb_int(5, 0) + pb_int(6, 9)),
                             event(1100, 11, SIGNAL_DELIVER,
                                   pb_int(1, 0) + pb_int(2, 0) + pb_int(3, 15)))
        self.assertEqual(self.run_query(data, "select s.ts, s.dur, s.name, th.tid, a.key, "
                                              "a.int_value, a.value_type from slice s "
                                              "join thread_track t on t.id = s.track_id "
                                              "join thread th using (utid) "
                                              "join args a using (arg_set_id) order by s.ts"),
                         '"ts","dur","name","tid","key","int_value","value_type"\n'
                         '1000,0,"signal_generate",20,"signal.sig",9,"int"\n'
                         '1100,0,"signal_deliver",11,"signal.sig",15,"int"\n')

    def test_events_that_end_nothing_make_no_track_or_thread(self):
        # binder_locked without binder_lock, binder_unlock without a held
        # lock, and sched_process_free of a tid never seen
        data = TREE + bundle(0, event(1000, 11, BINDER_LOCKED, pb_int(1, 1)),
                             event(1100, 11, BINDER_UNLOCK, pb_int(1, 1)),
                             event(1200, 11, SCHED_PROCESS_FREE,
                                   pb_bytes(1, 'gone') + pb_int(2, 77) + pb_int(3, 120)))
        self.assertEqual(self.run_query(data, "select (select count(*) from track) as tracks, "
                                              "(select count(*) from thread where tid = 77) "
                                              "as freed"),
                         '"tracks","freed"\n0,0\n')

    def test_workqueue_slices_have_an_int_cpu_arg(self):
        data = TREE + bundle(2, event(1000, 11, WORKQUEUE_EXECUTE_START,
                                      pb_int(1, 5) + pb_int(2, 6) + pb_int(3, 7)))
        self.assertEqual(self.run_query(data, "select a.key, a.int_value, a.value_type from slice "
                                              "s join args a using (arg_set_id)"),
                         '"key","int_value","value_type"\n"cpu",2,"int"\n')


if __name__ == '__main__':
    e.main()
