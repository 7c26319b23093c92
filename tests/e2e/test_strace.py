"""End-to-end: strace text import (`strace -f -ttt`): syscall slices on
thread tracks with their args, unfinished/resumed pairs, the stats of lines
that are not read."""
import weft_e2e as e

STRACE = """1000 1700000052.321000 openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = 3 <0.000123>
1001 1700000052.321100 read(3,  <unfinished ...>
1000 1700000052.321150 close(3)        = 0
1001 1700000052.321200 <... write resumed>) = 1
1001 1700000052.321300 <... read resumed> "abc", 1024) = 3
1002 1700000052.321400 epoll_wait(3,  <unfinished ...>
1002 1700000052.321500 <... epoll_wait resumed> {}, 64, -1 <unfinished ...>
1002 1700000052.321600 <... epoll_wait resumed> ) = 1
--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---
[pid  1003] 1700000052.321700 getpid() = 1003
1700000052.321800 getppid() = 1
1000 14:32:01.123456 close(4) = 0
+++ exited with 0 +++
1000 1700000052.321900 exit_group(0) = ?"""


def slices_sql():
    return ("select s.ts, s.dur, s.name, s.category, s.depth, t.tid, "
            "(select group_concat(key || '=' || string_value, ' ; ') from "
            "(select * from args a where a.arg_set_id = s.arg_set_id order by key)) "
            "as args from slice s join thread_track tt on s.track_id = tt.id "
            "join thread t using (utid) order by s.ts, s.id")


class StraceTest(e.TempDirTest):
    def test_slices_and_args(self):
        p = e.write_temp(self.dir, 'trace.strace', STRACE)
        out = e.query(slices_sql(), p)
        self.assertEqual(
            out,
            '"ts","dur","name","category","depth","tid","args"\n'
            '1700000052321000000,0,"openat","strace",0,1000,'
            '"args=AT_FDCWD, "/etc/passwd", O_RDONLY ; ret=3 <0.000123>"\n'
            # The resumed line's args replace the unfinished line's.
            '1700000052321100000,200000,"read","strace",0,1001,'
            '"args="abc", 1024 ; ret=3"\n'
            '1700000052321150000,0,"close","strace",0,1000,"args=3 ; ret=0"\n'
            '1700000052321400000,100000,"epoll_wait","strace",0,1002,'
            '"args={}, 64, -1"\n'
            '1700000052321500000,100000,"epoll_wait","strace",0,1002,'
            '"args={}, 64, -1 ; ret=1"\n')

    def test_stats_of_lines_not_read(self):
        # The signal, exit and "[pid N]" lines fail to parse, the time of
        # day is unsupported, the pid-less line has no thread; the last line
        # has no newline and is not read.
        p = e.write_temp(self.dir, 'trace.strace', STRACE)
        out = e.query("select name, value, severity from stats where name like "
                      "'strace%' order by name", p)
        self.assertEqual(out, '"name","value","severity"\n'
                         '"strace_missing_pid",1,"error"\n'
                         '"strace_parse_failure",3,"info"\n'
                         '"strace_unsupported_timestamp_format",1,"error"\n')

    def test_lines_not_read_are_logged_past_their_newline(self):
        p = e.write_temp(self.dir, 'trace.strace', STRACE)
        ends = []
        at = 0
        for line in STRACE.split('\n')[:-1]:  # the last line has no newline
            at += len(line) + 1
            ends.append(at)
        # lines 9 (signal), 10 ([pid N]), 11 (no pid), 12 (time of day), 13 (exit)
        expected = [(ends[8], 'info', 'strace_parse_failure'),
                    (ends[9], 'info', 'strace_parse_failure'),
                    (ends[10], 'error', 'strace_missing_pid'),
                    (ends[11], 'error', 'strace_unsupported_timestamp_format'),
                    (ends[12], 'info', 'strace_parse_failure')]
        self.assertEqual(e.query('select ts, byte_offset, severity, name, arg_set_id '
                                 'from _trace_import_logs order by id', p),
                         '"ts","byte_offset","severity","name","arg_set_id"\n' +
                         ''.join('"[NULL]",%d,"%s","%s","[NULL]"\n' % x for x in expected))

    def test_realtime_clock_and_metadata(self):
        p = e.write_temp(self.dir, 'trace.strace', STRACE)
        out = e.query("select name, int_value, str_value from metadata where name in "
                      "('trace_type', 'trace_time_clock_id') order by name", p)
        self.assertEqual(out, '"name","int_value","str_value"\n'
                         '"trace_time_clock_id",1,"[NULL]"\n'
                         '"trace_type","[NULL]","strace"\n')
        out = e.query('select tid, upid from thread where tid > 0 order by tid', p)
        self.assertEqual(out, '"tid","upid"\n1000,"[NULL]"\n1001,"[NULL]"\n'
                         '1002,"[NULL]"\n')


if __name__ == '__main__':
    e.main()
