"""End-to-end: GenericKernel* packets (model/gkernel.h, proto_generic_kernel.c).
Every expected answer is worked out by hand from the rules in gkernel.h."""
import weft_e2e as e


def task(ts, tid, state, cpu=None, comm=None, prio=None, machine=None):
    """A GenericKernelTaskStateEvent packet as text."""
    fields = ['tid: %d' % tid, 'state: %s' % state]
    if cpu is not None:
        fields.append('cpu: %d' % cpu)
    if comm is not None:
        fields.append('comm: "%s"' % comm)
    if prio is not None:
        fields.append('prio: %d' % prio)
    extra = ' machine_id: %d' % machine if machine is not None else ''
    return 'packet { timestamp: %d generic_kernel_task_state_event { %s }%s }\n' % (
        ts, ' '.join(fields), extra)


RUN, SLEEP, DEAD, GONE, NEW = ('TASK_STATE_RUNNING', 'TASK_STATE_INTERRUPTIBLE_SLEEP',
                               'TASK_STATE_DEAD', 'TASK_STATE_DESTROYED', 'TASK_STATE_CREATED')


class GenericKernelTest(e.TempDirTest):
    def trace(self, text):
        return e.textproto_trace(self.dir, 'gk.pb', text)

    def stat(self, name, path):
        return e.query("select value from stats where name = '%s'" % name, path)

    def test_switch_out_state_arrives_after_next_task(self):
        # task1 runs, task2 replaces it on cpu 0, then task1's own sleep event
        # at the same ts names the end state of the slice it left.
        path = self.trace(task(100, 1, RUN, 0, 'a', 120) + task(200, 2, RUN, 0, 'b', 110) +
                          task(200, 1, SLEEP, 0, 'a'))
        self.assertEqual(e.query('select ts, dur, utid, end_state, priority from sched order by ts',
                                 path),
                         '"ts","dur","utid","end_state","priority"\n'
                         '100,100,1,"S",120\n200,-1,2,"[NULL]",110\n')
        self.assertEqual(e.query('select ts, dur, utid, state, cpu from thread_state '
                                 'order by utid, ts', path),
                         '"ts","dur","utid","state","cpu"\n'
                         '100,100,1,"Running",0\n200,-1,1,"S","[NULL]"\n'
                         '200,-1,2,"Running",0\n')

    def test_only_running_tasks_make_cpu_rows(self):
        # created, sleeping, dead and destroyed tasks name a cpu but make no
        # row for it; the first task running on a cpu does
        path = self.trace(task(100, 1, NEW, 5, 'a') + task(150, 1, SLEEP, 6, 'a') +
                          task(200, 2, RUN, 2, 'b') + task(300, 2, SLEEP, 2, 'b') +
                          task(350, 1, DEAD, 7) + task(400, 1, GONE, 4))
        self.assertEqual(e.query('select cpu from cpu order by cpu', path), '"cpu"\n2\n')

    def test_late_state_after_switch_keeps_unknown_row(self):
        # The sleep comes later than the switch: the gap stays an unknown state.
        path = self.trace(task(100, 1, RUN, 0) + task(200, 2, RUN, 0) + task(250, 1, SLEEP))
        self.assertEqual(e.query('select ts, dur, state from thread_state where utid = 1 '
                                 'order by ts', path),
                         '"ts","dur","state"\n100,100,"Running"\n200,50,"[NULL]"\n'
                         '250,-1,"S"\n')
        self.assertEqual(e.query('select end_state from sched where utid = 1', path),
                         '"end_state"\n"[NULL]"\n')

    def test_events_are_applied_in_time_order(self):
        # The file holds the sleep first; sorted, it closes the running slice.
        path = self.trace(task(300, 7, SLEEP, 0) + task(100, 7, RUN, 3))
        self.assertEqual(e.query('select ts, dur, cpu, end_state from sched', path),
                         '"ts","dur","cpu","end_state"\n100,-1,3,"[NULL]"\n')
        # cpu 0 had no running task: the sleep is only a thread state
        self.assertEqual(e.query('select ts, dur, state from thread_state order by ts', path),
                         '"ts","dur","state"\n100,200,"Running"\n300,-1,"S"\n')

    def test_invalid_orders_are_counted_and_dropped(self):
        path = self.trace(task(100, 1, RUN, 0) + task(150, 1, RUN, 1) +   # running twice
                          task(200, 1, NEW) +                               # created while live
                          task(300, 2, DEAD) + task(400, 2, SLEEP) +        # state after dead
                          task(500, 3, 'TASK_STATE_UNKNOWN'))
        self.assertEqual(self.stat('generic_task_state_invalid_order', path), '"value"\n3\n')
        self.assertEqual(self.stat('task_state_invalid', path), '"value"\n1\n')
        self.assertEqual(e.query('select ts, utid, state from thread_state order by ts', path),
                         '"ts","utid","state"\n100,1,"Running"\n300,2,"Z"\n')

    def test_two_states_at_one_ts_are_kept_and_counted(self):
        path = self.trace(task(100, 5, 'TASK_STATE_RUNNABLE') + task(100, 5, SLEEP))
        self.assertEqual(self.stat('generic_task_state_invalid_order', path), '"value"\n1\n')
        self.assertEqual(e.query('select ts, dur, state from thread_state', path),
                         '"ts","dur","state"\n100,0,"R"\n100,-1,"S"\n')

    def test_thread_lifetime_and_tid_reuse(self):
        path = self.trace(task(100, 9, NEW, comm='first') + task(300, 9, GONE) +
                          task(400, 9, RUN, 0, 'second') + task(500, 8, GONE, comm='ghost'))
        self.assertEqual(e.query('select utid, tid, name, start_ts, end_ts from thread '
                                 'where tid != 0 order by utid', path),
                         '"utid","tid","name","start_ts","end_ts"\n'
                         '1,9,"first",100,300\n2,9,"second","[NULL]","[NULL]"\n'
                         '3,8,"ghost","[NULL]",500\n')
        self.assertEqual(e.query('select utid, state from thread_state order by ts', path),
                         '"utid","state"\n1,"Created"\n1,"X"\n2,"Running"\n3,"X"\n')

    def test_swapper_has_no_thread_states(self):
        path = self.trace(task(100, 0, RUN, 0) + task(200, 4, RUN, 0))
        self.assertEqual(e.query('select utid, ts, dur from sched order by ts', path),
                         '"utid","ts","dur"\n0,100,100\n1,200,-1\n')
        self.assertEqual(e.query('select utid from thread_state', path), '"utid"\n1\n')

    def test_two_machines_keep_threads_and_cpus_apart(self):
        path = self.trace(task(100, 1, RUN, 0, 'host') + task(150, 1, RUN, 0, 'guest', machine=7) +
                          task(200, 1, SLEEP, 0) + task(250, 1, SLEEP, 0, machine=7))
        self.assertEqual(e.query('select s.ts, s.dur, s.ucpu, s.end_state, t.name, t.machine_id '
                                 'from sched s join thread t using (utid) order by s.ts', path),
                         '"ts","dur","ucpu","end_state","name","machine_id"\n'
                         '100,100,0,"S","host",0\n150,100,4096,"S","guest",1\n')

    def test_rename_and_process_tree(self):
        # A rename ranks below the process tree's thread name (the thread keeps
        # "app") but renames the process of a main thread; an empty comm does
        # nothing. A process without a cmdline says nothing.
        path = self.trace(
            'packet { timestamp: 10 generic_kernel_process_tree {'
            ' processes { pid: 10 ppid: 1 cmdline: "/bin/app --x" }'
            ' processes { pid: 11 }'
            ' threads { tid: 10 pid: 10 comm: "app" is_main_thread: true }'
            ' threads { tid: 12 pid: 11 comm: "idle0" is_idle: true } } }\n'
            'packet { timestamp: 20 generic_kernel_task_rename_event { tid: 10 comm: "renamed" } }\n'
            'packet { timestamp: 30 generic_kernel_task_rename_event { tid: 12 comm: "" } }\n')
        self.assertEqual(e.query('select pid, name, cmdline, parent_upid is not null as has_parent '
                                 'from process where pid in (1, 10, 11) order by pid', path),
                         '"pid","name","cmdline","has_parent"\n'
                         '1,"[NULL]","[NULL]",0\n10,"renamed","/bin/app --x",1\n'
                         '11,"[NULL]","[NULL]",0\n')
        self.assertEqual(e.query('select tid, name, is_main_thread, is_idle from thread '
                                 'where tid in (10, 12) order by tid', path),
                         '"tid","name","is_main_thread","is_idle"\n'
                         '10,"app",1,0\n12,"idle0",0,1\n')

    def test_cpu_frequency_in_khz_per_machine(self):
        path = self.trace(
            'packet { timestamp: 5 generic_kernel_cpu_freq_event { cpu: 2 freq_hz: 1800000000 } }\n'
            'packet { timestamp: 6 generic_kernel_cpu_freq_event { cpu: 2 freq_hz: 999 }'
            ' machine_id: 42 }\n')
        self.assertEqual(e.query('select c.ts, c.value, t.cpu, t.machine_id from counter c '
                                 "join cpu_counter_track t on c.track_id = t.id "
                                 "where t.type = 'cpu_frequency' order by c.ts", path),
                         '"ts","value","cpu","machine_id"\n'
                         '5,1800000.000000,2,0\n6,0.999000,2,1\n')


if __name__ == '__main__':
    e.main()
