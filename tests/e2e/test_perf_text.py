"""End-to-end: `perf script` text (src/import/perf_text): each sample a
cpu_profile_stack_sample row on its thread, its frames interned per mapping
name, its callstack root first from depth 1, as Perfetto's perf text
importer reads it. The expected tables are what Perfetto's
trace_processor_shell answers on the same text."""
import os

import weft_e2e as e

# Three threads of two processes and one without a pid; frames shared
# between samples; a frame whose symbol has no offset; a sample without
# frames.
SAMPLES = """\
perf  100/100 [001] 10.000001:     250000 cpu-clock:ppp: 
\tffffffff8162e91f do_syscall_64+0x5f ([kernel.kallsyms])
\t    7f0000001000 write+0x10 (/usr/lib/libc.so.6)
\t    55000000aaaa main+0x2a (/usr/bin/perf)

perf  100/101 [000] 10.000500:     250000 cpu-clock:ppp: 
\t    7f0000001000 write+0x10 (/usr/lib/libc.so.6)
\t    55000000aaaa main+0x2a (/usr/bin/perf)

Chrome_IO thread\t 200/202 10.000200:          1 cycles:u: 
\t               0 [unknown] ([unknown])
\t    7f0000002000 operator+ (/usr/lib/libstdc++.so.6)
\t    7f0000002000 operator+ (/usr/lib/libstdc++.so.6)

kworker/0:1   7 10.000300:     250000 cpu-clock:ppp: 
\tffffffff8162e91f do_syscall_64+0x5f ([kernel.kallsyms])

ls  300 10.000400:     250000 cpu-clock:ppp: 

"""


class PerfTextTest(e.TempDirTest):
    def load(self, text, sql):
        return e.query(sql, e.write_temp(self.dir, 'perf.txt', text))

    def test_samples_on_threads_in_time_order(self):
        # Samples are sorted by time (MONOTONIC: the trace time clock), at
        # seconds * 10^9 in doubles, truncated (10.000001 s is ...999 ns).
        out = self.load(SAMPLES, "select ts, callsite_id, utid, process_priority from "
                        "cpu_profile_stack_sample order by id; "
                        "select name, int_value, str_value from metadata where name in "
                        "('trace_type', 'trace_time_clock_id') order by name")
        self.assertEqual(out, '"ts","callsite_id","utid","process_priority"\n'
                         '10000000999,2,1,0\n10000199999,5,3,0\n10000300000,6,4,0\n'
                         '10000500000,1,5,0\n\n"name","int_value","str_value"\n'
                         '"trace_time_clock_id",3,"[NULL]"\n"trace_type","[NULL]","perf_text"\n')

    def test_callstacks_frames_and_mappings(self):
        # Callsites root first, the root at depth 1; a symbol cut at its
        # last '+'; one mapping per name (empty build id, range 0..-1) and
        # one frame per (mapping, symbol), each with a symbol row of its own.
        out = self.load(SAMPLES, "select id, depth, parent_id, frame_id from "
                        "stack_profile_callsite order by id; "
                        "select id, name, mapping, rel_pc, symbol_set_id from "
                        "stack_profile_frame order by id; "
                        "select symbol_set_id, name, source_file, line_number from "
                        "stack_profile_symbol order by id; "
                        "select build_id, exact_offset, start_offset, start, end, load_bias, "
                        "name from stack_profile_mapping order by id")
        self.assertEqual(out, '"id","depth","parent_id","frame_id"\n'
                         '0,1,"[NULL]",2\n1,2,0,1\n2,3,1,0\n3,1,"[NULL]",4\n4,2,3,4\n'
                         '5,3,4,3\n6,1,"[NULL]",0\n\n'
                         '"id","name","mapping","rel_pc","symbol_set_id"\n'
                         '0,"do_syscall_64",0,0,0\n1,"write",1,0,1\n2,"main",2,0,2\n'
                         '3,"[unknown]",3,0,3\n4,"operator",4,0,4\n\n'
                         '"symbol_set_id","name","source_file","line_number"\n'
                         '0,"do_syscall_64","[NULL]","[NULL]"\n1,"write","[NULL]","[NULL]"\n'
                         '2,"main","[NULL]","[NULL]"\n3,"[unknown]","[NULL]","[NULL]"\n'
                         '4,"operator","[NULL]","[NULL]"\n\n'
                         '"build_id","exact_offset","start_offset","start","end","load_bias",'
                         '"name"\n"",0,0,0,-1,0,"[kernel.kallsyms]"\n'
                         '"",0,0,0,-1,0,"/usr/lib/libc.so.6"\n"",0,0,0,-1,0,"/usr/bin/perf"\n'
                         '"",0,0,0,-1,0,"[unknown]"\n"",0,0,0,-1,0,"/usr/lib/libstdc++.so.6"\n')

    def test_threads_processes_and_names(self):
        # pid/tid: a process new to the trace gets its main thread first;
        # the comm names the thread, and the process when it is the main
        # thread. A tid alone makes a thread of no process.
        out = self.load(SAMPLES, "select utid, tid, upid, name, is_main_thread from thread "
                        "order by utid; select upid, pid, name from process order by upid; "
                        "select name, value from stats where value > 0 and name not like "
                        "'%duration_ns'")
        self.assertEqual(out, '"utid","tid","upid","name","is_main_thread"\n'
                         '0,0,0,"[NULL]",1\n1,100,1,"perf",1\n2,200,2,"[NULL]",1\n'
                         '3,202,2,"Chrome_IO thread",0\n4,7,"[NULL]","kworker/0:1","[NULL]"\n'
                         '5,101,1,"perf",0\n\n"upid","pid","name"\n0,0,"[NULL]"\n'
                         '1,100,"perf"\n2,200,"[NULL]"\n\n"name","value"\n'
                         '"perf_text_importer_sample_no_frames",1\n')

    def test_numbers_read_as_strtoul_and_an_unended_last_sample(self):
        # A tid of -1 wraps to 2^32 - 1. A last sample that no empty line
        # ends is not a sample, but its frames were read.
        text = ('c a  12/-1 [1] 5.000001: 1 cycles:\n\tffff foo+0x1 (/bin/x)\n\n'
                'c 8 6.000000:\n\t1 bar (/bin/y)\n')
        out = self.load(text, "select ts, utid from cpu_profile_stack_sample; "
                        "select utid, tid, upid, name from thread order by utid; "
                        "select name from stack_profile_frame order by id")
        self.assertEqual(out, '"ts","utid"\n5000001000,2\n\n"utid","tid","upid","name"\n'
                         '0,0,0,"[NULL]"\n1,12,1,"[NULL]"\n2,4294967295,1,"c a"\n\n'
                         '"name"\n"foo"\n"bar"\n')

    def test_tid_zero_is_a_thread_of_its_own(self):
        # perf script -a names the idle task "swapper 0": without a kernel
        # trace in the load it is not utid 0 but a thread made on first use.
        text = ('a 5 1.000000:\n\t1 f (m)\n\nswapper     0 [000] 2.000000: 1 cpu-clock:\n'
                '\t1 g (m)\n\nswapper     0 [001] 3.000000: 1 cpu-clock:\n\t1 g (m)\n\n')
        out = self.load(text, "select ts, utid from cpu_profile_stack_sample order by ts; "
                        "select utid, tid, name from thread order by utid")
        self.assertEqual(out, '"ts","utid"\n1000000000,1\n2000000000,2\n3000000000,2\n\n'
                         '"utid","tid","name"\n0,0,"[NULL]"\n1,5,"a"\n2,0,"swapper"\n')

    def test_bad_lines_fail_the_load_naming_them(self):
        cases = [('c 7 1.000000:\n\tffff foo (/bin/x)\n\nc 8 2.000000:\n\tbadframe\n\n',
                  "unable to find symbol in frame (context: 'badframe')"),
                 ('c 7 1.000000:\n\tffff foo /bin/x\n\n',
                  "unable to find mapping in frame (context: 'ffff foo /bin/x')"),
                 ('c 7 1.000000:\n\tffff foo (/bin/x)\n\n\nc 8 2.000000:\n',
                  "unable to parse sample line (context: '')")]
        for text, message in cases:
            path = e.write_temp(self.dir, 'bad.txt', text)
            status, _, err = e.run('-Q', 'select 1', path)
            self.assertNotEqual(status, 0, text)
            self.assertIn(path, err)
            self.assertIn('Perf text parser: ' + message, err)

    def test_loaded_beside_a_json_trace(self):
        # A perf text file is a file like any other in a load: its samples
        # join a Chrome JSON trace's threads on one timeline.
        perf = e.write_temp(self.dir, 'perf.txt', SAMPLES)
        json_path = e.write_temp(self.dir, 'chrome.json',
                                 '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":5,'
                                 '"dur":1,"name":"s"}]}')
        out = e.query("select count(*) from cpu_profile_stack_sample; "
                      "select count(*) from slice; "
                      "select trace_type from __intrinsic_trace_file order by id",
                      perf, json_path)
        self.assertEqual(out, '"count(*)"\n4\n\n"count(*)"\n1\n\n"trace_type"\n'
                         '"perf_text"\n"json"\n')


if __name__ == '__main__':
    e.main()
