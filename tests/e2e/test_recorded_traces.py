"""End-to-end: traces recorded from real programs while the test runs (Debian's
chromium, headless, tracing its startup to a Perfetto proto and to JSON; and
Node.js with --trace-events-enabled), checked against rules worked out from
the traces themselves: every slice inside trace_bounds, timestamps in the
clock domain of the clock snapshots, slices nested inside their parents,
typed TrackEvent args and debug annotations decoded, JSON events counted by
phase. scripts/deps.sh installs both programs."""
import collections
import json
import os
import shutil
import subprocess

import weft_e2e as e

CATEGORIES = 'toplevel,benchmark,blink,v8,cc,disabled-by-default-devtools.timeline'


def record_chromium(directory, fmt):
    """A startup trace of headless chromium in `fmt` (proto or json)."""
    chromium = shutil.which('chromium')
    assert chromium, 'chromium is not installed (scripts/deps.sh installs it)'
    out = os.path.join(directory, 'chrome.' + fmt)
    subprocess.run([chromium, '--headless=new', '--no-sandbox', '--disable-gpu',
                    '--user-data-dir=' + os.path.join(directory, 'profile-' + fmt),
                    '--trace-startup=' + CATEGORIES, '--trace-startup-file=' + out,
                    '--trace-startup-format=' + fmt, '--trace-startup-duration=2',
                    '--virtual-time-budget=3000', '--dump-dom',
                    'data:text/html,<p id=x>weft</p><script>x.textContent+=1</script>'],
                   capture_output=True, timeout=120, check=False)
    assert os.path.getsize(out) > 0, 'chromium wrote no trace'
    return out


def record_node(directory):
    node = shutil.which('node')
    assert node, 'node is not installed (scripts/deps.sh installs it)'
    script = ('setTimeout(() => require("fs").readFileSync(process.execPath), 5);'
              'Promise.resolve().then(() => 1);')
    subprocess.run([node, '--trace-events-enabled',
                    '--trace-event-categories', 'v8,node,node.async_hooks', '-e', script],
                   cwd=directory, capture_output=True, timeout=60, check=True)
    return os.path.join(directory, 'node_trace.1.log')


class RecordedTracesTest(e.TempDirTest):
    def query(self, trace, sql):
        """The lines of the answer after its header."""
        return e.query(sql, trace, timeout=120).splitlines()[1:]

    def assert_slices_inside_bounds(self, trace):
        out = self.query(trace, 'select count(*) from slice, trace_bounds '
                         'where ts < start_ts or ts + max(dur, 0) > end_ts')
        self.assertEqual(out, ['0'])

    def assert_nested(self, trace):
        # A child starts inside its parent, ends inside it (when both have
        # ended), and is one level deeper.
        out = self.query(trace, 'select count(*) from slice c join slice p '
                         'on c.parent_id = p.id where c.ts < p.ts '
                         'or c.depth != p.depth + 1 or (c.dur >= 0 and p.dur >= 0 '
                         'and c.ts + c.dur > p.ts + p.dur)')
        self.assertEqual(out, ['0'])

    def test_chromium_proto(self):
        trace = record_chromium(self.dir, 'proto')
        self.assert_slices_inside_bounds(trace)
        self.assert_nested(trace)
        # Chrome writes track events on sequence-scoped incremental clocks:
        # decoded, they land in the BOOTTIME domain of the clock snapshots,
        # within seconds of them (a trace lasts seconds), not near zero.
        start, end, first, last = map(int, self.query(
            trace, "select start_ts, end_ts, (select min(clock_value) from clock_snapshot "
            "where clock_name = 'BOOTTIME'), (select max(clock_value) from clock_snapshot "
            "where clock_name = 'BOOTTIME') from trace_bounds")[0].split(','))
        self.assertGreater(start, first - 10_000_000_000)
        self.assertLess(end, last + 10_000_000_000)
        self.assertGreater(int(self.query(trace, 'select count(*) from slice')[0]), 100)
        # Typed fields (task_execution's interned source location) and debug
        # annotations become args; names are sanitized.
        keys = self.query(trace, 'select distinct key from args')
        self.assertTrue(any(k.startswith('"task.posted_from.') for k in keys), keys[:20])
        self.assertTrue(any(k.startswith('"debug.') for k in keys), keys[:20])
        bad = [k for k in keys if k.startswith('"debug.') and
               ('[' in k.split('[')[0][7:] or k.count('debug.') > 1)]
        self.assertEqual(bad, [])

    def test_chromium_json(self):
        trace = record_chromium(self.dir, 'json')
        with open(trace) as f:
            events = json.load(f)['traceEvents']
        self.assert_slices_inside_bounds(trace)
        self.assert_nested(trace)
        phases = collections.Counter(ev.get('ph') for ev in events)
        slices = int(self.query(trace, 'select count(*) from slice')[0])
        # One slice per complete event, B, instant (I, i, and the MARK R)
        # and async begin or instant (b, n); E, e and flow events add none.
        self.assertEqual(slices, sum(phases[p] for p in 'XBIiRbn'))

    def test_node(self):
        trace = record_node(self.dir)
        with open(trace) as f:
            events = json.load(f)['traceEvents']
        phases = collections.Counter(ev.get('ph') for ev in events)
        self.assert_slices_inside_bounds(trace)
        self.assert_nested(trace)
        # Node writes X, B/E, I and b/e events: one slice per X, B, I and b.
        out = self.query(trace, 'select count(*) from slice')
        self.assertEqual(out, [str(phases['X'] + phases['B'] + phases['I'] + phases['b'])])
        names = {ev['args']['name'] for ev in events
                 if ev.get('ph') == 'M' and ev.get('name') == 'thread_name'}
        got = set(n.strip('"') for n in self.query(trace, 'select name from thread '
                                                   'where name is not null'))
        self.assertTrue(names <= got, (names, got))


if __name__ == '__main__':
    e.main()
