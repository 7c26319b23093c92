"""End-to-end: a ProcessTree thread whose process the dump does not list
makes that process with its main thread first, as Perfetto's
GetOrCreateProcess does (so does a systrace line's tgid); a tid in two processes names, by tid alone, the
thread a (tid, pid) lookup picked last. A process entry without a cmdline
field is skipped; a thread entry without a tgid is in process 0."""
import weft_e2e as e

TRACE = '''
packet { timestamp: 10 process_tree {
  processes { pid: 100 ppid: 1 cmdline: "com.a" }
  threads { tid: 101 tgid: 100 name: "worker" }
  threads { tid: 999 tgid: 998 name: "orphan" }
  threads { tid: 997 tgid: 997 name: "main" } } }
'''


class ProcessTreeThreadsTest(e.TempDirTest):
    def test_unlisted_process_gets_its_main_thread(self):
        p = e.textproto_trace(self.dir, 'trace', TRACE)
        self.assertEqual(e.query("select utid, tid, upid, name, is_main_thread from thread "
                                 "where tid > 100 order by utid", p), (
            '"utid","tid","upid","name","is_main_thread"\n'
            '3,101,2,"worker",0\n'
            '4,998,3,"[NULL]",1\n'
            '5,999,3,"orphan",0\n'
            '6,997,4,"main",1\n'))

    def test_a_tid_in_two_processes_names_the_thread_last_picked_by_pid(self):
        # An atrace begin of pid 470 written for process 13250 makes a second
        # thread 470; the process tree's (470, 470) then picks the first
        # one again, and a later sched_switch to 470 is that one's.
        p = e.textproto_trace(self.dir, 'trace', """
packet { timestamp: 10 process_tree { processes { pid: 470 ppid: 1 cmdline: "bash" } } }
packet { ftrace_events { cpu: 0 event { timestamp: 100 pid: 470 print { buf: "B|13250|x\\n" } } } }
packet { ftrace_events { cpu: 1 event { timestamp: 120 pid: 17 sched_switch {
  prev_comm: "baz" prev_pid: 17 prev_state: 1 next_comm: "bash" next_pid: 470 } } } }
packet { timestamp: 150 process_tree { threads { tid: 470 tgid: 470 } } }
packet { ftrace_events { cpu: 1 event { timestamp: 200 pid: 470 sched_switch {
  prev_comm: "bash" prev_pid: 470 prev_state: 1 next_comm: "baz" next_pid: 17 } } } }
packet { ftrace_events { cpu: 1 event { timestamp: 300 pid: 17 sched_switch {
  prev_comm: "baz" prev_pid: 17 prev_state: 1 next_comm: "bash" next_pid: 470 } } } }
""")
        self.assertEqual(e.query("select t.utid, t.tid, p.pid from thread t join process p "
                                 "using(upid) where t.tid = 470 order by t.utid", p),
                         '"utid","tid","pid"\n2,470,470\n4,470,13250\n')
        self.assertEqual(e.query("select ts, utid from sched where utid in (2, 4) "
                                 "order by ts", p),
                         '"ts","utid"\n120,4\n300,2\n')

    def test_systrace_tgid_of_a_new_process_makes_its_main_thread(self):
        # The line's tid is a thread first; its tgid then makes the process,
        # whose main thread comes right after it.
        p = e.write_temp(self.dir, 'trace.txt', '# tracer: nop\n#\n'
                         '           comm-13    (   12) [000] ...1     1.000000: '
                         'tracing_mark_write: B|12|x\n'
                         '           comm-14    (   12) [000] ...1     2.000000: '
                         'tracing_mark_write: B|12|y\n')
        self.assertEqual(e.query("select utid, tid, upid, name, is_main_thread from thread "
                                 "order by utid", p), (
            '"utid","tid","upid","name","is_main_thread"\n'
            '0,0,0,"swapper",1\n1,13,1,"comm",0\n2,12,1,"[NULL]",1\n3,14,1,"comm",0\n'))

    def test_entries_without_cmdline_are_skipped_and_threads_without_tgid_are_in_pid_0(self):
        p = e.textproto_trace(self.dir, 'trace', """
packet { timestamp: 10 process_tree {
  processes { pid: 30 ppid: 1 uid: 5 }
  processes { pid: 33 ppid: 1 cmdline: "" }
  processes { pid: 34 ppid: 1 cmdline: "x" }
  threads { tid: 40 tgid: 30 }
  threads { tid: 41 tgid: 34 }
  threads { tid: 42 name: "loose" } } }
""")
        self.assertEqual(e.query("select upid, pid, name, parent_upid, uid from process "
                                 "order by upid", p), (
            '"upid","pid","name","parent_upid","uid"\n'
            '0,0,"[NULL]","[NULL]","[NULL]"\n1,1,"[NULL]","[NULL]","[NULL]"\n'
            '2,33,"",1,"[NULL]"\n3,34,"x",1,"[NULL]"\n4,30,"[NULL]","[NULL]","[NULL]"\n'))
        self.assertEqual(e.query("select utid, tid, upid, name from thread where tid >= 30 "
                                 "order by utid", p), (
            '"utid","tid","upid","name"\n'
            '2,33,2,"[NULL]"\n3,34,3,"[NULL]"\n4,30,4,"[NULL]"\n5,40,4,"[NULL]"\n'
            '6,41,3,"[NULL]"\n7,42,0,"loose"\n'))


if __name__ == '__main__':
    e.main()
