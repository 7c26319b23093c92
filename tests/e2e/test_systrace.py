"""End-to-end: systrace text import (sched, thread states, atrace, counters,
raw events, to_ftrace), HTML-wrapped systrace."""
import re

import weft_e2e as e

SYSTRACE = """# tracer: nop
#
#                              _-----=> irqs-off
#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION
#              | |        |      |   ||||       |         |
          <idle>-0     (-----) [000] d..2   10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app main next_pid=100 next_prio=120
        app main-100   (  100) [000] ....   10.000100: tracing_mark_write: B|100|draw
        app main-100   (  100) [000] ....   10.000200: tracing_mark_write: C|100|queued|7
        app main-100   (  100) [000] ....   10.000300: tracing_mark_write: E|100
        app main-100   (  100) [000] d..2   10.000400: sched_switch: prev_comm=app main prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0     (-----) [001] dNh3   10.000500: sched_waking: comm=app main pid=100 prio=120 target_cpu=000
          <idle>-0     (-----) [001] d..2   10.000600: cpu_frequency: state=1800000 cpu_id=1
          <idle>-0     (-----) [001] d..2   10.000700: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app main next_pid=100 next_prio=120
"""

# Kernel events Perfetto's text parser reads for the line's thread only.
KERNEL_LINES = """# tracer: nop
          <idle>-0     (-----) [001] d.h1   19.999000: irq_handler_entry: irq=1 name=timer
          <idle>-0     (-----) [001] d.h1   19.999100: irq_handler_exit: irq=1 ret=handled
          <idle>-0     (-----) [000] d..2   20.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120
             app-100   (  100) [000] .s.1   20.000100: softirq_entry: vec=9 [action=RCU]
             app-100   (  100) [000] .s.1   20.000150: softirq_exit: vec=9 [action=RCU]
             app-100   (  100) [000] ....   20.000200: task_newtask: pid=200 comm=app clone_flags=1200000 oom_score_adj=0
             app-100   (  100) [000] d..2   20.000250: sched_wakeup_new: comm=app pid=200 prio=120 target_cpu=001
             app-100   (  100) [000] ....   20.000260: task_rename: pid=100 oldcomm=app newcomm=renamed oom_score_adj=0
             app-100   (  100) [000] ....   20.000300: block_rq_issue: 8,0 WS 4096 () 100 + 8 [app]
             app-100   (  100) [000] d..2   20.000500: sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0     (-----) [001] d..2   20.000550: sched_wakeup: comm=app pid=100 prio=120 target_cpu=000
          <idle>-0     (-----) [001] d..2   20.000600: cpu_idle: state=1 cpu_id=1
     kworker/0:1-7     (    7) [000] ....   20.000700: sched_process_exit: comm=kworker/0:1 pid=7 prio=120 group_dead=true
"""

class SystraceTest(e.TempDirTest):
    def test_sched_and_thread_state(self):
        p = e.write_temp(self.dir, 'trace.systrace', SYSTRACE)
        out = e.query('select ts, dur, cpu, end_state, tid from sched '
                      'join thread using (utid) order by ts', p)
        self.assertEqual(out, '"ts","dur","cpu","end_state","tid"\n'
                         '10000000000,400000,0,"S",100\n'
                         '10000400000,-1,0,"[NULL]",0\n'
                         '10000700000,-1,1,"[NULL]",100\n')
        out = e.query("select ts, dur, state, cpu from thread_state "
                      "join thread using (utid) where tid = 100 order by ts", p)
        self.assertEqual(out, '"ts","dur","state","cpu"\n'
                         '10000000000,400000,"Running",0\n'
                         '10000400000,100000,"S","[NULL]"\n'
                         '10000500000,200000,"R","[NULL]"\n'
                         '10000700000,-1,"Running",1\n')

    def test_atrace_threads_and_counters(self):
        p = e.write_temp(self.dir, 'trace.systrace', SYSTRACE)
        out = e.query('select s.name, s.ts, s.dur, t.tid, t.name as tname, '
                      'p.pid from slice s join thread_track tt on s.track_id = tt.id '
                      'join thread t using (utid) join process p using (upid)', p)
        self.assertEqual(out, '"name","ts","dur","tid","tname","pid"\n'
                         '"draw",10000100000,200000,100,"app main",100\n')
        out = e.query("select c.ts, c.value, t.name from counter c join "
                      "counter_track t on c.track_id = t.id order by c.ts", p)
        self.assertEqual(out, '"ts","value","name"\n'
                         '10000200000,7.000000,"queued"\n'
                         '10000600000,1800000.000000,"cpufreq"\n')

    def test_raw_and_to_ftrace(self):
        p = e.write_temp(self.dir, 'trace.systrace', SYSTRACE)
        out = e.query("select to_ftrace(id) as line from ftrace_event "
                      "where name = 'sched_switch' order by ts limit 1", p)
        self.assertEqual(out, '"line"\n"          <idle>-0     (-----) [000] .... '
                         '10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 '
                         'prev_prio=120 prev_state=R ==> next_comm=app main '
                         'next_pid=100 next_prio=120"\n')
        # Only the sched_switch lines make raw rows, as Perfetto's text
        # parser does.
        out = e.query("select name, count(*) as n from raw group by name", p)
        self.assertEqual(out, '"name","n"\n"sched_switch",3\n')

    def test_text_states_beside_a_new_kernel_proto(self):
        # A proto trace of the same machine says its kernel is 6.1, where
        # raw prev_state bits are laid out differently; the text's letters
        # keep their meaning ("I", "R+").
        import zipfile
        text = ('# tracer: nop\n#\n'
                '  a-10 [000] d..3  1.000000: sched_switch: prev_comm=a prev_pid=10 '
                'prev_prio=120 prev_state=I ==> next_comm=b next_pid=11 next_prio=120\n'
                '  b-11 [000] d..3  2.000000: sched_switch: prev_comm=b prev_pid=11 '
                'prev_prio=120 prev_state=R+ ==> next_comm=a next_pid=10 next_prio=120\n')
        info = e.pb_bytes(45, e.pb_bytes(1, e.pb_bytes(1, 'Linux') + e.pb_bytes(3, '6.1.0')))
        proto = e.pb_packet(e.pb_int(10, 1), info)
        path = e.write_temp(self.dir, 'x.zip', b'')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('a.systrace', text)
            z.writestr('b.pftrace', proto)
        out = e.query("select state from thread_state where state not in ('Running') "
                      'order by ts', path)
        self.assertEqual(out.splitlines()[1:], ['"I"', '"R+"'])

    def test_html_wrapped(self):
        html = ('<!DOCTYPE html>\n<html><body>\n'
                '<script class="trace-data" type="application/text">\n' + SYSTRACE +
                '</script>\n<script class="trace-data" type="application/text">\n'
                '{"traceEvents": []}\n</script>\n</body></html>\n')
        p = e.write_temp(self.dir, 'trace.html', html)
        out = e.query("select count(*) as n from sched", p)
        self.assertEqual(out, '"n"\n3\n')

    def test_garbage_lines_are_skipped(self):
        # Lines that are not events count in systrace_parse_failure; an
        # event line whose args do not read (trace-cmd's own sched_switch
        # layout) is skipped without a count, as Perfetto does.
        p = e.write_temp(self.dir, 'trace.systrace',
                         '# tracer: nop\nnot an event\n' + SYSTRACE.splitlines()[5] +
                         '\n\x00\xff junk [001] x\n'
                         '   bash-8522  [000]  10.5: sched_switch: bash:8522 [120] S ==> '
                         'cc1:8512 [120]\n')
        out = e.query("select count(*) as n from sched", p)
        self.assertEqual(out, '"n"\n1\n')
        out = e.query("select name, value from stats where value > 0 and "
                      "name not glob '*_duration_ns'", p)
        self.assertEqual(out, '"name","value"\n"systrace_parse_failure",2\n')

    def test_only_the_events_perfetto_reads_make_rows(self):
        # irqs, softirqs, block requests, task_newtask / task_rename,
        # sched_wakeup(_new) and sched_process_exit are read by Perfetto's
        # systrace parser for their thread only: no slices, no raw rows, no
        # process for the new task, no runnable state; cpu_idle is a counter
        # only; trace_bounds spans the rows made, not the lines.
        p = e.write_temp(self.dir, 'kernel.systrace', KERNEL_LINES)
        self.assertEqual(e.query('select count(*) as n from slice', p), '"n"\n0\n')
        self.assertEqual(e.query('select name, count(*) as n from ftrace_event group by name', p),
                         '"name","n"\n"sched_switch",2\n')
        self.assertEqual(e.query('select tid, name from thread order by tid', p),
                         '"tid","name"\n0,"swapper"\n7,"kworker/0:1"\n100,"app"\n')
        self.assertEqual(e.query('select pid from process order by pid', p),
                         '"pid"\n0\n7\n100\n')
        self.assertEqual(e.query('select ts, dur, state from thread_state order by ts', p),
                         '"ts","dur","state"\n20000000000,500000,"Running"\n'
                         '20000500000,-1,"S"\n')
        self.assertEqual(e.query('select t.type, c.ts, c.value from counter c join track t '
                                 'on c.track_id = t.id', p),
                         '"type","ts","value"\n"cpu_idle",20000600000,1.000000\n')
        self.assertEqual(e.query('select * from trace_bounds', p),
                         '"start_ts","end_ts"\n20000000000,20000600000\n')
        # The text's clock is MONOTONIC by weft's own statement, not a
        # snapshot of the trace.
        self.assertEqual(e.query('select count(*) as n from clock_snapshot', p), '"n"\n0\n')

    def test_line_longer_than_max_line_fails_naming_file_line_and_limit(self):
        line = '  a-1 [000] .... 1.0: tracing_mark_write: B|1|'
        ok = line + 'x' * (1024 - len(line))  # exactly the limit: loads
        p = e.write_temp(self.dir, 'ok.systrace', '# tracer: nop\n' + ok + '\n')
        rc, out, err = e.run('--max-line', '1K', '-Q', 'select length(name) as n from slice', p)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"n"\n%d\n' % (1024 - len(line)))
        for name, text in (('long.systrace', '# tracer: nop\n#\n' + ok + 'y\n'),
                           ('last.systrace', '# tracer: nop\n#\n' + ok + 'y'),
                           ('long.html', '<html><script class="trace-data">\n# tracer\n' +
                            ok + 'y\n</script></html>')):
            p = e.write_temp(self.dir, name, text)
            rc, out, err = e.run('--max-line', '1K', '-Q', 'select count(*) from slice', p)
            self.assertEqual(rc, 1, name)
            self.assertIn(name, err)
            self.assertIn('line 3 is longer than the line limit of 1024 bytes (--max-line)', err)
            self.assertEqual(len(err.strip().split('\n')), 1, err)

    def test_long_line_in_json_system_trace_events(self):
        line = '  a-1 [000] .... 1.0: tracing_mark_write: B|1|' + 'x' * 2000
        doc = '{"traceEvents": [], "systemTraceEvents": "# tracer: nop\\n%s\\n"}' % line
        p = e.write_temp(self.dir, 'sys.json', doc)
        rc, out, err = e.run('--max-line', '1K', '-Q', 'select count(*) from slice', p)
        self.assertEqual(rc, 1, out)
        self.assertIn('sys.json', err)
        self.assertIn('systemTraceEvents', err)
        self.assertIn('line 2 is longer than the line limit of 1024 bytes (--max-line)', err)
        rc, out, err = e.run('-Q', 'select count(*) as n from slice', p)
        self.assertEqual((rc, out), (0, '"n"\n1\n'), err)


# Every table a systrace fills, whole rows in id order, and the stats.
DUMP = ''.join('select * from %s order by id;\n' % t for t in
               ['slice', 'sched', 'thread_state', 'counter', 'args', 'thread',
                'process', 'track', 'ftrace_event']) + \
    ("select name, idx, value from stats where value != 0 and name not glob '*_duration_ns' "
     'order by name, idx;\n')
CHUNK = 4 << 20  # systrace_import.c's SYSTRACE_CHUNK_BYTES


def large_systrace(blocks, newline_at=None, tail=''):
    """SYSTRACE's events repeated `blocks` times, 1 ms apart, each block on
    its own thread (tid 100 + block % 50); with `newline_at`, a comment line
    padded so that a newline falls exactly at that offset."""
    lines = SYSTRACE.splitlines(keepends=True)
    out = lines[:5]
    size = sum(len(x) for x in out)
    for b in range(blocks):
        tid = str(100 + b % 50)
        for line in lines[5:]:
            text = re.sub(r'\b100\b', tid, line)
            text = re.sub(r' 10\.(\d{6}):',
                          lambda m: ' %d.%06d:' % (10 + b // 1000, b % 1000 * 1000 + int(m.group(1))),
                          text)
            if newline_at is not None and size + len(text) + 2 > newline_at:
                comment = '#' + 'p' * (newline_at - size - 1) + '\n'
                out.append(comment)
                size += len(comment)
                newline_at = None
            out.append(text)
            size += len(text)
    return ''.join(out) + tail


class LargeSystraceTest(e.TempDirTest):
    """A systrace text file above 8 MiB is walked in chunks of about 4 MiB
    by the worker threads: the tables and errors are one thread's."""

    def assert_same_tables(self, path):
        want = e.query(DUMP, path, options=('--threads', '1'), timeout=300)
        self.assertGreater(want.count('\n'), 100000)
        for threads in (2, 3):
            out = e.query(DUMP, path, options=('--threads', str(threads)), timeout=300)
            self.assertTrue(out == want, 'threads %d differs from 1' % threads)
        return want

    def test_chunks_give_one_walks_tables(self):
        # A newline exactly at a chunk's nominal end, and a last line without one.
        text = large_systrace(10000, newline_at=CHUNK, tail='  a-7 [000] .... 99.5: '
                              'tracing_mark_write: B|7|last')
        self.assertGreater(len(text), 9 << 20)
        self.assertEqual(text[CHUNK], '\n')
        p = e.write_temp(self.dir, 'big.systrace', text)
        want = self.assert_same_tables(p)
        self.assertIn('"last"', want)
        out = e.query('select count(*) as n from sched', p, options=('--threads', '2'))
        self.assertEqual(out, '"n"\n%d\n' % (3 * 10000))

    def test_html_wrapped_large_file(self):
        # Leading white space, and an event-like line outside the trace
        # data, which only a walk of the whole file would take.
        text = ('\n  <!DOCTYPE html>\n<html><body>\n'
                '  x-5 [000] .... 1.0: tracing_mark_write: B|5|outside\n'
                '<script class="trace-data">\n' +
                large_systrace(10000) + '</script>\n</body></html>\n')
        self.assertGreater(len(text), 9 << 20)
        want = self.assert_same_tables(e.write_temp(self.dir, 'big.html', text))
        self.assertNotIn('outside', want)

    def test_long_line_in_a_later_chunk_fails_the_same(self):
        text = large_systrace(10000)
        cut = text.index('\n', 2 * CHUNK + 100) + 1
        line_no = text.count('\n', 0, cut) + 1
        long = '  a-1 [000] .... 1.0: tracing_mark_write: B|1|' + 'x' * 2000 + '\n'
        p = e.write_temp(self.dir, 'long.systrace', text[:cut] + long + text[cut:])
        for threads in (1, 2, 3):
            rc, out, err = e.run('--threads', str(threads), '--max-line', '1K', '-Q',
                                 'select count(*) from slice', p, timeout=300)
            self.assertEqual(rc, 1, 'threads %d' % threads)
            self.assertIn('long.systrace', err)
            self.assertIn('line %d is longer than the line limit of 1024 bytes '
                          '(--max-line)' % line_no, err)


if __name__ == '__main__':
    e.main()
