"""End-to-end: systrace text import (sched, thread states, atrace, counters,
raw events, to_ftrace), HTML-wrapped systrace."""
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


class SystraceTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_sched_and_thread_state(self):
        p = e.write_temp(self.dir, 'trace.systrace', SYSTRACE)
        out = self.query('select ts, dur, cpu, end_state, tid from sched '
                         'join thread using (utid) order by ts', p)
        self.assertEqual(out, '"ts","dur","cpu","end_state","tid"\n'
                         '10000000000,400000,0,"S",100\n'
                         '10000400000,-1,0,"[NULL]",0\n'
                         '10000700000,-1,1,"[NULL]",100\n')
        out = self.query("select ts, dur, state, cpu from thread_state "
                         "join thread using (utid) where tid = 100 order by ts", p)
        self.assertEqual(out, '"ts","dur","state","cpu"\n'
                         '10000000000,400000,"Running",0\n'
                         '10000400000,100000,"S","[NULL]"\n'
                         '10000500000,200000,"R","[NULL]"\n'
                         '10000700000,-1,"Running",1\n')

    def test_atrace_threads_and_counters(self):
        p = e.write_temp(self.dir, 'trace.systrace', SYSTRACE)
        out = self.query('select s.name, s.ts, s.dur, t.tid, t.name as tname, '
                         'p.pid from slice s join thread_track tt on s.track_id = tt.id '
                         'join thread t using (utid) join process p using (upid)', p)
        self.assertEqual(out, '"name","ts","dur","tid","tname","pid"\n'
                         '"draw",10000100000,200000,100,"app main",100\n')
        out = self.query("select c.ts, c.value, t.name from counter c join "
                         "counter_track t on c.track_id = t.id order by c.ts", p)
        self.assertEqual(out, '"ts","value","name"\n'
                         '10000200000,7.000000,"queued"\n'
                         '10000600000,1800000.000000,"cpufreq"\n')

    def test_raw_and_to_ftrace(self):
        p = e.write_temp(self.dir, 'trace.systrace', SYSTRACE)
        out = self.query("select to_ftrace(id) as line from ftrace_event "
                         "where name = 'sched_switch' order by ts limit 1", p)
        self.assertEqual(out, '"line"\n"          <idle>-0     (-----) [000] .... '
                         '10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 '
                         'prev_prio=120 prev_state=R ==> next_comm=app main '
                         'next_pid=100 next_prio=120"\n')
        out = self.query("select count(*) as n from raw", p)
        self.assertEqual(out, '"n"\n8\n')

    def test_html_wrapped(self):
        html = ('<!DOCTYPE html>\n<html><body>\n'
                '<script class="trace-data" type="application/text">\n' + SYSTRACE +
                '</script>\n<script class="trace-data" type="application/text">\n'
                '{"traceEvents": []}\n</script>\n</body></html>\n')
        p = e.write_temp(self.dir, 'trace.html', html)
        out = self.query("select count(*) as n from sched", p)
        self.assertEqual(out, '"n"\n3\n')

    def test_garbage_lines_are_skipped(self):
        p = e.write_temp(self.dir, 'trace.systrace',
                         '# tracer: nop\nnot an event\n' + SYSTRACE.splitlines()[5] +
                         '\n\x00\xff junk [001] x\n')
        out = self.query("select count(*) as n from sched", p)
        self.assertEqual(out, '"n"\n1\n')


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


if __name__ == '__main__':
    e.main()
