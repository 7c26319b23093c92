"""End-to-end: Perfetto service/system packets (proto_misc)."""
import os

import weft_e2e as e

DATA = os.path.join(e.ROOT, 'tests', 'data', 'proto_import')


class ProtoSystemTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.encode_textproto(os.path.join(DATA, 'system_packets.textproto'),
                                        os.path.join(self.dir, 'system_packets.pb'))

    def test_machine_from_system_info(self):
        out = e.query('select sysname, release, arch, num_cpus, android_sdk_version, '
                      'system_ram_bytes, system_ram_gb from machine', self.trace)
        self.assertEqual(out, '"sysname","release","arch","num_cpus","android_sdk_version",'
                         '"system_ram_bytes","system_ram_gb"\n'
                         '"Linux","6.1.0","aarch64",2,30,7999999999,8\n')

    def test_metadata_scopes(self):
        out = e.query("select name, int_value, str_value, machine_id, trace_id from metadata "
                      "where name in ('system_name', 'android_incremental_build', "
                      "'trace_uuid', 'all_data_source_flushed_ns', 'timezone_off_mins') "
                      "order by name", self.trace)
        self.assertEqual(out, '"name","int_value","str_value","machine_id","trace_id"\n'
                         '"all_data_source_flushed_ns",2500,"[NULL]",0,0\n'
                         '"android_incremental_build","[NULL]","1234567",0,"[NULL]"\n'
                         '"system_name","[NULL]","Linux",0,"[NULL]"\n'
                         '"timezone_off_mins",-60,"[NULL]",0,"[NULL]"\n'
                         '"trace_uuid","[NULL]","01234567-89ab-cdef-0123-456789abcdef",'
                         '"[NULL]",0\n')
        out = e.query("select extract_metadata('system_name') as a, "
                      "extract_metadata_for_machine(0, 'system_machine') as b, "
                      "extract_metadata_for_machine(1, 'system_machine') as c", self.trace)
        self.assertEqual(out, '"a","b","c"\n"Linux","aarch64","[NULL]"\n')

    def test_cpu_info(self):
        out = e.query("select cpu, cluster_id, processor, "
                      "extract_arg(arg_set_id, 'cpu_features.mte') as mte, "
                      "extract_arg(arg_set_id, 'arm_cpu_part') as part from cpu order by cpu", self.trace)
        self.assertEqual(out, '"cpu","cluster_id","processor","mte","part"\n'
                         '0,0,"little",1,"[NULL]"\n1,1,"big","[NULL]",3336\n')
        out = e.query('select freq, group_concat(cpu) as cpus from '
                      'cpu_available_frequencies group by freq order by freq', self.trace)
        self.assertEqual(out, '"freq","cpus"\n100,"0,1"\n500,"0"\n900,"1"\n')

    def test_unknown_cpu_features_are_logged(self):
        trace = e.textproto_trace(self.dir, 'cpus.pb', (
            'packet { trusted_packet_sequence_id: 1 cpu_info { '
            'cpus { processor: "a" features: 1 } cpus { processor: "b" features: 1024 } '
            'cpus { processor: "c" features: 3072 } } }\n'))
        out = e.query("select value from stats where name = 'cpu_info_unknown_cpu_features'; "
                      "select byte_offset, ts, severity, name from _trace_import_logs", trace)
        self.assertEqual(out, '"value"\n2\n\n"byte_offset","ts","severity","name"\n' +
                         '"[NULL]","[NULL]","info","cpu_info_unknown_cpu_features"\n' * 2)

    def test_diagnostics(self):
        out = e.query('select key from __intrinsic_trace_diagnostics order by key', self.trace)
        self.assertEqual(out, '"key"\n"discard_buffer_for_streaming"\n'
                         '"events_require_symbolize_ksyms"\n')

    def test_buffer_and_loss_stats(self):
        out = e.query("select name, idx, value from stats where (name glob 'traced_buf_*' "
                      "or name glob 'long_trace*') and value > 0 order by name, idx", self.trace)
        self.assertEqual(out, '"name","idx","value"\n'
                         '"long_trace_mode_bytes_overwritten",0,7\n'
                         '"traced_buf_bytes_overwritten",0,7\n'
                         '"traced_buf_bytes_written",0,100\n'
                         '"traced_buf_data_loss_overwrite",0,1\n'
                         '"traced_buf_data_loss_read_gap",0,1\n'
                         '"traced_buf_sequence_packet_loss",0,2\n')

    def test_trigger_and_sessions(self):
        out = e.query("select s.ts, s.name, extract_arg(s.arg_set_id, 'producer_name') "
                      "as producer from slice s join track t on s.track_id = t.id "
                      "where t.name = 'Trace Triggers'", self.trace)
        self.assertEqual(out, '"ts","name","producer"\n1000,"go","prod"\n')
        out = e.query("select t.name, s.ts, s.dur, s.value from state s "
                      "join track t on s.track_id = t.id order by s.ts", self.trace)
        self.assertEqual(out, '"name","ts","dur","value"\n'
                         '"Session 4",2000,1000,"STARTED"\n"Session 4",3000,0,"DISABLED"\n')


# ftrace sees threads of processes it cannot place; later process trees
# place them. Perfetto's answers: the thread ids, processes and parents below.
PROCESS_TREE_LATE = """
packet { ftrace_events { cpu: 0
  event { timestamp: 1 pid: 0 sched_switch { prev_comm: "idle" prev_pid: 0
          next_comm: "a0" next_pid: 30 } }
  event { timestamp: 2 pid: 0 sched_switch { prev_comm: "a0" prev_pid: 30
          next_comm: "a1" next_pid: 31 } }
  event { timestamp: 3 pid: 31 task_newtask { pid: 32 comm: "a2" clone_flags: 65536 } }
  event { timestamp: 4 pid: 32 task_newtask { pid: 33 comm: "a3" clone_flags: 65536 } }
  event { timestamp: 5 pid: 50 task_newtask { pid: 51 comm: "b1" clone_flags: 65536 } }
} }
packet { timestamp: 10 process_tree {
  processes { pid: 30 ppid: 1 cmdline: "proc_a" }
  threads { tid: 31 tgid: 30 }
  processes { pid: 40 cmdline: "proc_b" } } }
packet { timestamp: 11 process_tree {
  processes { pid: 40 ppid: 30 cmdline: "proc_b2" } } }
"""


class InlineTraceTest(e.TempDirTest):
    """A test on the trace TEXT (Perfetto text format) encoded by protoc."""
    TEXT = ''

    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 'trace.pb', self.TEXT)


class ProcessTreeLateTest(InlineTraceTest):
    TEXT = PROCESS_TREE_LATE

    def test_threads_join_the_process_found_later(self):
        # 30 is the main thread of the tree's process 30; 32 and 33 were
        # cloned (CLONE_THREAD) from 31 and 32 before any of them had a
        # process: they join it when 31 does. 51's cloner never gets one.
        out = e.query('select tid, pid, is_main_thread from thread '
                      'left join process using(upid) where tid >= 30 order by tid', self.trace)
        self.assertEqual(out, '"tid","pid","is_main_thread"\n30,30,1\n31,30,0\n'
                         '32,30,0\n33,30,0\n40,40,1\n50,"[NULL]","[NULL]"\n'
                         '51,"[NULL]","[NULL]"\n')

    def test_parent_is_the_first_given(self):
        # the parents are created first, with their main threads; an absent
        # ppid is pid 0; a later, different ppid is counted, not applied.
        out = e.query('select p.pid, p.name, pp.pid as ppid from process p '
                      'left join process pp on p.parent_upid = pp.upid order by p.upid', self.trace)
        self.assertEqual(out, '"pid","name","ppid"\n0,"[NULL]","[NULL]"\n'
                         '1,"[NULL]","[NULL]"\n30,"proc_a",1\n40,"proc_b2",0\n')
        out = e.query("select value from stats where name = "
                      "'process_tracker_parent_pid_changed'", self.trace)
        self.assertEqual(out, '"value"\n1\n')
        out = e.query('select tid from thread where tid in (1, 30, 40) order by utid', self.trace)
        self.assertEqual(out, '"tid"\n30\n1\n40\n')


FTRACE_STATS = """
packet { trusted_packet_sequence_id: 2 ftrace_stats { phase: START_OF_TRACE
  cpu_stats { cpu: 0 entries: 4 overrun: 1 bytes_read: 100 oldest_event_ts: 1.5
              now_ts: 2.25 dropped_events: 3 read_events: 10 }
  cpu_stats { cpu: 1 entries: 5 bytes_read: 10 }
  atrace_errors: "e1" unknown_ftrace_events: "foo/bar" unknown_ftrace_events: "x/y"
  failed_ftrace_events: "a/b"
  ftrace_parse_errors: FTRACE_STATUS_ABI_ZERO_DATA_LENGTH
  ftrace_parse_errors: FTRACE_STATUS_ABI_ZERO_DATA_LENGTH } }
packet { trusted_packet_sequence_id: 2 ftrace_stats { phase: START_OF_TRACE
  atrace_errors: "counted once per sequence" } }
packet { trusted_packet_sequence_id: 2 ftrace_stats { phase: END_OF_TRACE
  cpu_stats { cpu: 0 entries: 14 overrun: 3 commit_overrun: 2 bytes_read: 840
              oldest_event_ts: 3.5 now_ts: 4.0 dropped_events: 5 read_events: 20 }
  cpu_stats { cpu: 1 entries: 6 bytes_read: 10 }
  atrace_errors: "not counted at the end" } }
"""


class FtraceStatsTest(InlineTraceTest):
    TEXT = FTRACE_STATS

    def test_cpu_stats_begin_end_delta(self):
        out = e.query("select name, value from stats where idx = 0 and value <> 0", self.trace)
        self.assertEqual(out, '"name","value"\n'
                         '"ftrace_cpu_entries_begin",4\n"ftrace_cpu_overrun_begin",1\n'
                         '"ftrace_cpu_bytes_begin",100\n"ftrace_cpu_dropped_events_begin",3\n'
                         '"ftrace_cpu_read_events_begin",10\n'
                         '"ftrace_cpu_now_ts_begin",2250000000\n'
                         '"ftrace_cpu_oldest_event_ts_begin",1500000000\n'
                         '"ftrace_cpu_entries_end",14\n"ftrace_cpu_overrun_end",3\n'
                         '"ftrace_cpu_commit_overrun_end",2\n"ftrace_cpu_bytes_end",840\n'
                         '"ftrace_cpu_dropped_events_end",5\n"ftrace_cpu_read_events_end",20\n'
                         '"ftrace_cpu_now_ts_end",4000000000\n'
                         '"ftrace_cpu_entries_delta",10\n"ftrace_cpu_overrun_delta",2\n'
                         '"ftrace_cpu_commit_overrun_delta",2\n"ftrace_cpu_bytes_delta",740\n'
                         '"ftrace_cpu_dropped_events_delta",2\n'
                         '"ftrace_cpu_read_events_delta",10\n'
                         '"ftrace_cpu_oldest_event_ts_end",3500000000\n')
        out = e.query("select count(*) as n, sum(value) as v from stats where idx = 1", self.trace)
        self.assertEqual(out, '"n","v"\n22,32\n')

    def test_setup_and_parse_errors(self):
        out = e.query("select name, severity, value from stats where name in "
                      "('ftrace_setup_errors', 'ftrace_abi_errors_skipped_zero_data_length') "
                      "order by name", self.trace)
        self.assertEqual(out, '"name","severity","value"\n'
                         '"ftrace_abi_errors_skipped_zero_data_length","info",2\n'
                         '"ftrace_setup_errors","notice",4\n')

    def test_critical_parse_error_fails_the_load(self):
        bad = FTRACE_STATS.replace('FTRACE_STATUS_ABI_ZERO_DATA_LENGTH } }',
                                   'FTRACE_STATUS_ABI_SHORT_EVENT_ID } }')
        trace = e.textproto_trace(self.dir, 'bad.pb', bad)
        rc, _, err = e.run('-Q', 'select 1', trace)
        self.assertNotEqual(rc, 0)
        self.assertIn('FTRACE_STATUS_ABI_SHORT_EVENT_ID', err)


FUNCGRAPH = """
packet { trusted_packet_sequence_id: 1 sequence_flags: 1 interned_data { kernel_symbols { iid: 1 str: "outer" } kernel_symbols { iid: 2 str: "inner" } }
  ftrace_events { cpu: 2
    event { timestamp: 100 pid: 7 funcgraph_entry { depth: 0 func: 1 } }
    event { timestamp: 110 pid: 7 funcgraph_entry { depth: 1 func: 2 } }
    event { timestamp: 120 pid: 7 funcgraph_exit { depth: 1 func: 2 } }
    event { timestamp: 130 pid: 7 funcgraph_exit { depth: 0 func: 1 } }
    event { timestamp: 140 pid: 0 funcgraph_entry { depth: 0 func: 255 } }
    event { timestamp: 150 pid: 0 funcgraph_exit { depth: 0 func: 255 } }
    event { timestamp: 160 pid: 7 funcgraph_exit { depth: 0 func: 1 } }
    event { timestamp: 170 pid: 0 funcgraph_entry { depth: 0 func: 0 } }
  } }
packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 3
    event { timestamp: 145 pid: 0 funcgraph_entry { depth: 0 func: 1 } } } }
"""


class FuncgraphTest(InlineTraceTest):
    TEXT = FUNCGRAPH

    def test_slices_on_thread_and_idle_cpu_tracks(self):
        # entries open, exits end the innermost; pid 0 is per cpu; an
        # uninterned function is named by its address in hex
        out = e.query("select s.ts, s.dur, s.name, s.depth, t.name as track, t.type "
                      "from slice s join track t on s.track_id = t.id order by s.ts", self.trace)
        self.assertEqual(out, '"ts","dur","name","depth","track","type"\n'
                         '100,30,"outer",0,"Funcgraph","thread_funcgraph"\n'
                         '110,10,"inner",1,"Funcgraph","thread_funcgraph"\n'
                         '140,10,"0xff",0,"swapper2 -funcgraph","cpu_funcgraph"\n'
                         '145,-1,"outer",0,"swapper3 -funcgraph","cpu_funcgraph"\n'
                         '170,-1,"0",0,"swapper2 -funcgraph","cpu_funcgraph"\n')

    def test_raw_rows_symbolize_func(self):
        out = e.query("select e.ts, e.name, a.key, a.display_value from ftrace_event e "
                      "join args a using(arg_set_id) where e.ts in (120, 140) "
                      "order by e.ts, a.id", self.trace)
        self.assertEqual(out, '"ts","name","key","display_value"\n'
                         '120,"funcgraph_exit","depth","1"\n'
                         '120,"funcgraph_exit","func","inner"\n'
                         '140,"funcgraph_entry","depth","0"\n'
                         '140,"funcgraph_entry","func","255"\n')


PROCESS_STATS = """
packet { timestamp: 100 process_stats { processes { pid: 10 vm_size_kb: 1 vm_rss_kb: 2 rss_anon_kb: 3 rss_file_kb: 4 rss_shmem_kb: 5 vm_swap_kb: 6 vm_locked_kb: 7 vm_hwm_kb: 8 oom_score_adj: -9 is_peak_rss_resettable: true chrome_private_footprint_kb: 11 chrome_peak_resident_set_kb: 12 fds: 13 smr_rss_kb: 14 smr_pss_kb: 15 smr_pss_anon_kb: 16 smr_pss_file_kb: 17 smr_pss_shmem_kb: 18 runtime_user_mode: 19 runtime_kernel_mode: 20 smr_swap_pss_kb: 21 } } }
packet { timestamp: 200 process_stats { processes { pid: 10 vm_rss_kb: 4 oom_score_adj: 0 } processes { pid: 11 vm_size_kb: 5 } } }
"""


class ProcessStatsTest(InlineTraceTest):
    TEXT = PROCESS_STATS

    def test_counters_per_process(self):
        # Chrome's counters first, then by field; KiB fields in bytes;
        # oom_score_adj and runtimes as they are; fds makes no counter
        out = e.query("select c.ts, t.name, t.type, cast(c.value as int) as v, p.pid "
                      "from counter c join process_counter_track t on c.track_id = t.id "
                      "join process p using(upid) order by c.id", self.trace)
        self.assertEqual(out, '"ts","name","type","v","pid"\n'
                         '100,"chrome.private_footprint_kb","chrome_process_stats",11264,10\n'
                         '100,"chrome.peak_resident_set_kb","chrome_process_stats",12288,10\n'
                         '100,"mem.virt","process_memory",1024,10\n'
                         '100,"mem.rss","process_memory",2048,10\n'
                         '100,"mem.rss.anon","process_memory",3072,10\n'
                         '100,"mem.rss.file","process_memory",4096,10\n'
                         '100,"mem.rss.shmem","process_memory",5120,10\n'
                         '100,"mem.swap","process_memory",6144,10\n'
                         '100,"mem.locked","process_memory",7168,10\n'
                         '100,"mem.rss.watermark","process_memory",8192,10\n'
                         '100,"oom_score_adj","oom_score_adj",-9,10\n'
                         '100,"mem.smaps.rss","smaps",14336,10\n'
                         '100,"mem.smaps.pss","smaps",15360,10\n'
                         '100,"mem.smaps.pss.anon","smaps",16384,10\n'
                         '100,"mem.smaps.pss.file","smaps",17408,10\n'
                         '100,"mem.smaps.pss.smem","smaps",18432,10\n'
                         '100,"runtime.user_ns","proc_stat_runtime",19,10\n'
                         '100,"runtime.kernel_ns","proc_stat_runtime",20,10\n'
                         '100,"mem.smaps.swap.pss","smaps",21504,10\n'
                         '200,"mem.rss","process_memory",4096,10\n'
                         '200,"oom_score_adj","oom_score_adj",0,10\n'
                         '200,"mem.virt","process_memory",5120,11\n')

    def test_peak_resident_set_counts_as_an_unknown_field(self):
        # Perfetto's check of the fields its Chrome parser reads names the
        # private footprint twice: each chrome_peak_resident_set_kb counts
        # a proc_stat_unknown_counters (and is still a counter).
        out = e.query("select value from stats where name = 'proc_stat_unknown_counters'",
                      self.trace)
        self.assertEqual(out, '"value"\n1\n')

    def test_processes_get_main_threads_and_args(self):
        out = e.query("select tid, upid, is_main_thread from thread where tid > 0", self.trace)
        self.assertEqual(out, '"tid","upid","is_main_thread"\n10,1,1\n11,2,1\n')
        out = e.query("select p.pid, a.key, a.display_value from process p "
                      "join args a using(arg_set_id)", self.trace)
        self.assertEqual(out, '"pid","key","display_value"\n'
                         '10,"is_peak_rss_resettable","true"\n')


def ftrace_config_packet(body):
    return ('packet { trace_config { data_sources { config { name: "linux.ftrace" '
            'ftrace_config { %s } } } } }\n' % body)


class FtraceConfigDiagnosticsTest(e.TempDirTest):
    """FtraceConfig.compact_sched and function_graph_roots written in the text
    format: a function graph without symbolize_ksyms warns; sched_switch
    gives no diagnostic, with compact_sched or without (the reference's
    snapshot has no rule on it)."""

    def keys(self, body):
        trace = e.textproto_trace(self.dir, 'config.pb', ftrace_config_packet(body))
        return e.query('select key from __intrinsic_trace_diagnostics order by key', trace)

    def test_compact_sched_and_function_graph(self):
        self.assertEqual(self.keys('ftrace_events: "sched/sched_switch" buffer_size_kb: 8192'),
                         '"key"\n')
        self.assertEqual(self.keys('ftrace_events: "sched/sched_switch" buffer_size_kb: 8192 '
                                   'compact_sched { enabled: true }'), '"key"\n')
        self.assertEqual(self.keys('enable_function_graph: true function_graph_roots: '
                                   '"__schedule" buffer_size_kb: 8192'),
                         '"key"\n"function_graph_requires_symbolize_ksyms"\n')


if __name__ == '__main__':
    e.main()
