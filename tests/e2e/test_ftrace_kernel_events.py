"""End-to-end: ftrace events Perfetto turns into slices and threads beyond
the scheduler's: signal_generate / signal_deliver slices, binder locks
that were never waited for, sched_process_free of an unknown thread, and
the workqueue slice's cpu arg. Each expected answer is Perfetto's
trace_processor_shell's on the same trace."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SIGNAL_DELIVER, SIGNAL_GENERATE, BINDER_LOCKED, BINDER_UNLOCK = 324, 325, 54, 55
SCHED_PROCESS_FREE, WORKQUEUE_EXECUTE_START = 240, 58
RECLAIM_BEGIN, RECLAIM_END, HRTIMER_ENTRY, HRTIMER_EXIT = 46, 47, 553, 554
LOCAL_TIMER_ENTRY, LOCAL_TIMER_EXIT, KGSL_GPU_FREQUENCY, DEVFREQ_FREQUENCY = 559, 560, 509, 541
RSS_STAT_THROTTLED, DMABUF_RSS_STAT, SUSPEND_RESUME_MINIMAL = 359, 579, 481
I2C_READ, I2C_WRITE, I2C_RESULT = 27, 28, 29
MALI_MARK, LWIS_MARK, PANEL_WRITE_GENERIC = 350, 467, 490
MEMCG_BEGIN, MEMCG_END, CPUHP_ENTER, CPUHP_EXIT = 607, 608, 345, 343
SCM_CALL_START, SCM_CALL_END, RPM_STATUS, DCVSH_FREQ = 338, 339, 489, 508


def event(ts, pid, number, body):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(number, body))


def bundle(cpu, *events):
    return pb_packet(pb_bytes(1, pb_int(1, cpu) + b''.join(events)), pb_int(10, 1))


# each slice with its track and its args as key=value:type
SLICES_WITH_ARGS = ("select s.ts, s.dur, s.category, s.name, t.name as track, t.type, "
                    "(select group_concat(key || '=' || display_value || ':' || value_type, ' ') "
                    "from args a where a.arg_set_id = s.arg_set_id) as args "
                    "from slice s join track t on t.id = s.track_id")
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

    def test_reclaim_and_timer_slices(self):
        # direct reclaim: begin args, and the end's nr_reclaimed joins them
        # (an end with nothing open adds nothing); hrtimers on the cpu's
        # "Hrtimer Cpu N" named by the function's address; local timer irqs
        data = TREE + bundle(0, event(1000, 11, RECLAIM_BEGIN,
                                      pb_int(1, 3) + pb_int(2, 1) + pb_int(3, 0x400)),
                             event(1500, 11, RECLAIM_END, pb_int(1, 42)),
                             event(1600, 11, RECLAIM_END, pb_int(1, 7)),
                             event(1700, 11, HRTIMER_ENTRY, pb_int(1, 0xabc) + pb_int(2, 1650) +
                                   pb_int(3, 0xffff0000)),
                             event(1800, 11, HRTIMER_EXIT, pb_int(1, 0xabc)),
                             event(1900, 11, LOCAL_TIMER_ENTRY, b''),
                             event(1950, 11, LOCAL_TIMER_EXIT, b''))
        self.assertEqual(self.run_query(data, SLICES_WITH_ARGS),
                         '"ts","dur","category","name","track","type","args"\n'
                         '1000,500,"[NULL]","mm_vmscan_direct_reclaim","[NULL]",'
                         '"thread_execution","direct_reclaim_order=3:int '
                         'direct_reclaim_may_writepage=1:int direct_reclaim_gfp_flags=1024:uint '
                         'direct_reclaim_nr_reclaimed=42:uint"\n'
                         '1700,100,"hrtimer","0xffff0000","Hrtimer Cpu 0","cpu_hrtimer",'
                         '"[NULL]"\n'
                         '1900,50,"irq","IRQ (LocalTimer)","Irq Cpu 0","cpu_irq","[NULL]"\n')

    def test_kgsl_and_devfreq_frequencies_are_counters(self):
        data = TREE + bundle(0, event(1000, 11, KGSL_GPU_FREQUENCY, pb_int(1, 585) + pb_int(2, 1)),
                             event(1100, 11, DEVFREQ_FREQUENCY,
                                   pb_bytes(1, 'ddr') + pb_int(2, 1555) + pb_int(3, 1000)))
        self.assertEqual(self.run_query(data, "select t.name, t.type, t.unit, (select "
                                              "group_concat(key || '=' || display_value, ' ') "
                                              "from args a where a.arg_set_id = "
                                              "t.dimension_arg_set_id) as dims, c.ts, c.value "
                                              "from counter c join counter_track t "
                                              "on t.id = c.track_id order by c.ts"),
                         '"name","type","unit","dims","ts","value"\n'
                         '"gpufreq","gpu_frequency","kHz","ugpu=0 gpu=1",1000,585000.000000\n'
                         '"devfreq_ddr","linux_device_frequency","[NULL]","linux_device=ddr",'
                         '1100,1555.000000\n')

    def test_throttled_and_dmabuf_rss_are_process_memory(self):
        # rss_stat_throttled: curr 1, member 2, mm_id 3, size 4, read as
        # rss_stat; dmabuf_rss_stat: rss on mem.dmabuf_rss
        data = TREE + bundle(0, event(1000, 11, RSS_STAT_THROTTLED,
                                      pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 7) + pb_int(4, 8192)),
                             event(1100, 11, DMABUF_RSS_STAT,
                                   pb_int(1, 4096) + pb_int(2, 4096) + pb_int(3, 9)))
        self.assertEqual(self.run_query(data, "select t.name, t.type, c.ts, c.value from counter c "
                                              "join counter_track t on t.id = c.track_id "
                                              "order by c.ts"),
                         '"name","type","ts","value"\n'
                         '"mem.rss.anon","process_memory",1000,8192.000000\n'
                         '"mem.dmabuf_rss","process_memory",1100,4096.000000\n')

    def test_suspend_resume_minimal_slices(self):
        data = TREE + bundle(0, event(1000, 11, SUSPEND_RESUME_MINIMAL, pb_int(1, 1)),
                             event(1100, 11, SUSPEND_RESUME_MINIMAL, pb_int(1, 0)))
        self.assertEqual(self.run_query(data, "select s.ts, s.dur, s.name, t.name as track, t.type "
                                              "from slice s join track t on t.id = s.track_id"),
                         '"ts","dur","name","track","type"\n'
                         '1000,100,"Suspended","Suspend/Resume Minimal","suspend_resume_minimal"\n')

    def test_i2c_transfers_are_slices_ended_by_a_matching_result(self):
        # a transfer opens on the first read/write, later ones raise its
        # message count; only a result of that adapter and count ends it; a
        # result with nothing in flight makes no track
        def i2c(ts, tid, number, adapter, count):
            return event(ts, tid, number, pb_int(1, adapter) + pb_int(2, count))
        data = TREE + bundle(0, i2c(1000, 11, I2C_READ, 3, 0), i2c(1010, 11, I2C_WRITE, 3, 1),
                             i2c(1020, 11, I2C_RESULT, 3, 1), i2c(1030, 11, I2C_RESULT, 3, 2),
                             i2c(1100, 12, I2C_READ, 255, 0), i2c(1110, 12, I2C_RESULT, 255, 1),
                             i2c(1300, 14, I2C_RESULT, 3, 1))
        self.assertEqual(self.run_query(data, "select s.ts, s.dur, s.name, th.tid, "
                                              "(select count(*) from track) as tracks from slice s "
                                              "join thread_track t on t.id = s.track_id "
                                              "join thread th using (utid) order by s.ts"),
                         '"ts","dur","name","tid","tracks"\n1000,30,"i2c-3",11,2\n'
                         '1100,10,"i2c-255",12,2\n')

    def test_mali_lwis_and_panel_marks_are_atrace_points(self):
        b, e_, c = ord('B'), ord('E'), ord('C')
        data = TREE + bundle(
            0, event(1000, 11, MALI_MARK, pb_bytes(1, 'mali_slice') + pb_int(2, 10) + pb_int(3, b)),
            event(1100, 11, MALI_MARK, pb_bytes(1, 'mali_slice') + pb_int(2, 10) + pb_int(3, e_)),
            event(1200, 11, MALI_MARK, pb_bytes(1, 'mali_ctr') + pb_int(2, 10) + pb_int(3, c) +
                  pb_int(4, 5)),
            event(1300, 11, LWIS_MARK, pb_bytes(1, 'lwis0') + pb_int(2, b) + pb_int(3, 10) +
                  pb_bytes(4, 'lwis_func')),
            event(1400, 11, LWIS_MARK, pb_bytes(1, 'lwis0') + pb_int(2, e_) + pb_int(3, 10)),
            event(1500, 11, PANEL_WRITE_GENERIC, pb_int(1, 10) + pb_bytes(2, 'panel_trace') +
                  pb_int(3, 1) + pb_bytes(4, 'panel_name') + pb_int(5, b)),
            event(1600, 11, PANEL_WRITE_GENERIC, pb_int(1, 10) + pb_int(5, e_)),
            event(1700, 11, PANEL_WRITE_GENERIC, pb_int(1, 10) + pb_bytes(4, 'panel_name') +
                  pb_int(5, c) + pb_int(6, 9)))
        self.assertEqual(self.run_query(data, "select s.ts, s.dur, s.name, t.type from slice s "
                                              "join track t on t.id = s.track_id"),
                         '"ts","dur","name","type"\n1000,100,"mali_slice","thread_execution"\n'
                         '1300,100,"lwis_func","thread_execution"\n'
                         '1500,100,"panel_name","thread_execution"\n')
        self.assertEqual(self.run_query(data, "select c.ts, c.value, t.name, t.type from counter c "
                                              "join track t on t.id = c.track_id"),
                         '"ts","value","name","type"\n1200,5.000000,"mali_ctr","atrace_counter"\n'
                         '1700,9.000000,"panel_name","atrace_counter"\n')

    def test_memcg_reclaim_and_cpu_hotplug_slices(self):
        data = TREE + bundle(0, event(1000, 11, MEMCG_BEGIN, pb_int(1, 2) + pb_int(2, 3)),
                             event(1100, 11, MEMCG_END, pb_int(1, 9)),
                             event(1200, 11, CPUHP_ENTER, pb_int(1, 1) + pb_int(2, 5) +
                                   pb_int(3, 7) + pb_int(4, 9)),
                             event(1300, 11, CPUHP_EXIT, pb_int(1, 1) + pb_int(2, 5)))
        self.assertEqual(self.run_query(data, SLICES_WITH_ARGS),
                         '"ts","dur","category","name","track","type","args"\n'
                         '1000,100,"[NULL]","mm_vmscan_memcg_reclaim","[NULL]","thread_execution",'
                         '"memcg_reclaim_order=2:int memcg_reclaim_may_writepage=3:int '
                         'memcg_reclaim_gfp_flags=0:uint memcg_reclaim_nr_reclaimed=9:uint"\n'
                         '1200,100,"cpu","cpuhp(7)","CPU Hotplug 1","cpu_hotplug",'
                         '"action_cpu=0:uint cpuhp_idx=7:int"\n')

    def test_scm_calls_runtime_pm_and_cpu_throttling(self):
        def rpm(ts, status, device=b'd'):
            return event(ts, 11, RPM_STATUS, (pb_bytes(1, device) if device is not None else b'') +
                         pb_int(2, status))
        data = TREE + bundle(0, event(1000, 11, SCM_CALL_START, pb_int(2, 0x42000001)),
                             event(1100, 11, SCM_CALL_END, b''),
                             event(1150, 11, SCM_CALL_START, pb_int(2, 0)),
                             event(1160, 11, SCM_CALL_END, b''),
                             rpm(1200, 0), rpm(1300, 1), rpm(1400, 2), rpm(1500, 3), rpm(1600, -1),
                             rpm(1700, 0), rpm(1800, 0, None), rpm(1900, 1, b''),
                             event(2000, 11, DCVSH_FREQ, pb_int(1, 2) + pb_int(2, 1800000)))
        self.assertEqual(self.run_query(data, "select s.ts, s.dur, s.name, t.type, "
                                              "extract_arg(t.dimension_arg_set_id, 'linux_device') "
                                              "as device from slice s join track t "
                                              "on t.id = s.track_id order by s.ts"),
                         '"ts","dur","name","type","device"\n'
                         '1000,100,"scm id=0x42000001","thread_execution","[NULL]"\n'
                         '1150,10,"scm id=0","thread_execution","[NULL]"\n'
                         '1200,100,"Active","linux_rpm","d"\n'
                         '1300,100,"Resuming","linux_rpm","d"\n'
                         '1500,100,"Suspending","linux_rpm","d"\n'
                         '1600,100,"Invalid State","linux_rpm","d"\n'
                         '1700,-1,"Active","linux_rpm","d"\n'
                         '1800,100,"Active","linux_rpm","[NULL]"\n'
                         '1900,-1,"Resuming","linux_rpm","[NULL]"\n')
        self.assertEqual(self.run_query(data, "select t.name, t.type, extract_arg("
                                              "t.dimension_arg_set_id, 'cpu') as cpu, c.value "
                                              "from counter c join counter_track t "
                                              "on t.id = c.track_id"),
                         '"name","type","cpu","value"\n'
                         '"cpufreq_throttle","cpu_frequency_throttle",2,1800000.000000\n')


if __name__ == '__main__':
    e.main()
