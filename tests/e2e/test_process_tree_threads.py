"""End-to-end: a ProcessTree thread whose process the dump does not list
makes that process with its main thread first, as Perfetto's
GetOrCreateProcess does."""
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


if __name__ == '__main__':
    e.main()
