"""End-to-end: real kernel text traces (tests/data/real). The expected
answers are worked out here from the text by the rules weft follows (those
of Perfetto's systrace importer): which lines make rows, timestamps read
through a double, thread_state built from sched_switch and sched_waking."""
import collections
import os
import re

import weft_e2e as e

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, 'tests', 'data', 'real')
TRACES = ('tracefs_tgid.txt', 'trace_cmd_report.txt')

EVENT = re.compile(r'-(\d+)\s+\(?\s*(\d+|-+)?\)?\s?\[(\d+)\]\s*'
                   r'([a-zA-Z.]{3}[0-9a-f.]{1,2}\s*)?(\d+\.\d+):\s+(\S+):')
SWITCH_KEYS = ('prev_pid', 'prev_prio', 'next_pid', 'next_prio')


def events(path):
    """(ts, event, tgid text, args) of every event line, in time order."""
    out = []
    with open(path) as f:
        for line in f:
            m = EVENT.search(line)
            if line.startswith('#') or not m:
                continue
            args = {}
            for word in line[m.end():].split():
                if '=' in word:
                    args.setdefault(word.split('=')[0], word.split('=')[-1])
            ts = int(float(m.group(5)) * 1e9)
            out.append((ts, m.group(6), m.group(2), args))
    out.sort(key=lambda ev: ev[0])
    return out


def readable_switch(args):
    return all(k in args for k in SWITCH_KEYS)


def makes_rows(ev):
    _, name, _, args = ev
    if name == 'sched_switch':
        return readable_switch(args)
    return name in ('sched_waking', 'cpu_idle', 'cpu_frequency')


def thread_state_sums(evs):
    """{state: (rows, total dur)} of the closed thread_state rows: a
    switch-in opens Running, a switch-out ends a Running row and opens the
    prev_state row (any other open row stays open), a waking of a thread
    that is neither running nor runnable opens R; tid 0 has no rows."""
    open_rows = {}
    sums = collections.defaultdict(lambda: [0, 0])

    def start(tid, state, ts, end_any):
        old = open_rows.get(tid)
        if old and (end_any or old[0] == 'Running'):
            sums[old[0]][0] += 1
            sums[old[0]][1] += ts - old[1]
        open_rows[tid] = (state, ts)

    for ts, name, _, args in evs:
        if name == 'sched_switch' and readable_switch(args):
            prev, nxt = int(args['prev_pid']), int(args['next_pid'])
            if prev:
                start(prev, args.get('prev_state', ''), ts, False)
            if nxt:
                start(nxt, 'Running', ts, True)
        elif name == 'sched_waking' and 'pid' in args:
            tid = int(args['pid'])
            if open_rows.get(tid, ('',))[0] not in ('Running', 'R', 'R+'):
                start(tid, 'R', ts, True)
    return {k: tuple(v) for k, v in sums.items()}


class RealTracesTest(e.TempDirTest):
    def query(self, sql, path):
        """The rows of the answer (no header), as lists of cells."""
        return [line.split(',') for line in e.query(sql, path).strip().split('\n')[1:]]

    def check_trace(self, name):
        path = os.path.join(DATA, name)
        evs = events(path)
        rows = [ev for ev in evs if makes_rows(ev)]
        start, end = min(ev[0] for ev in rows), max(ev[0] for ev in rows)
        self.assertEqual(self.query('select * from trace_bounds', path),
                         [[str(start), str(end)]])
        # Every timestamp lies within the bounds.
        for table in ('sched', 'thread_state', 'counter', 'ftrace_event'):
            got = self.query('select count(*) from %s where ts < %d or ts > %d'
                             % (table, start, end), path)
            self.assertEqual(got, [['0']], table)
        # Raw rows: the readable sched_switch lines only, at their times.
        switches = [ev[0] for ev in evs if ev[1] == 'sched_switch' and readable_switch(ev[3])]
        got = self.query('select name, ts from ftrace_event order by ts', path)
        self.assertEqual(got, [['"sched_switch"', str(ts)] for ts in switches])
        self.assertEqual(self.query('select count(*) from sched', path), [[str(len(switches))]])
        # No slices (no atrace, and irqs / softirqs / block make none), no
        # clock_snapshot rows.
        self.assertEqual(self.query('select count(*) from slice', path), [['0']])
        self.assertEqual(self.query('select count(*) from clock_snapshot', path), [['0']])
        # Counters: one per cpu_idle / cpu_frequency line.
        for event, kind in (('cpu_idle', 'cpu_idle'), ('cpu_frequency', 'cpu_frequency')):
            want = sum(1 for ev in evs if ev[1] == event)
            got = self.query("select count(*) from counter c join track t on c.track_id = t.id "
                             "where t.type = '%s'" % kind, path)
            self.assertEqual(got, [[str(want)]], event)
        # Processes: pid 0 and one per tgid of the (tgid) column.
        tgids = {int(ev[2]) for ev in evs if ev[2] and ev[2][0] != '-'}
        got = self.query('select pid from process order by pid', path)
        self.assertEqual(got, [[str(p)] for p in sorted(tgids | {0})])
        # thread_state: per state, the closed rows and their total time.
        got = self.query('select state, count(*), sum(dur) from thread_state where dur >= 0 '
                         'group by state order by state', path)
        want = thread_state_sums(evs)
        self.assertEqual(got, [['"%s"' % s, str(want[s][0]), str(want[s][1])]
                               for s in sorted(want)])
        return evs

    def test_tracefs_text_with_tgid(self):
        evs = self.check_trace('tracefs_tgid.txt')
        self.assertGreater(sum(1 for ev in evs if ev[1] == 'sched_switch'), 500)

    def test_trace_cmd_report(self):
        # trace-cmd prints sched_switch in its own layout: no key=value args
        # to read, so no sched or raw rows, and no count for them either.
        evs = self.check_trace('trace_cmd_report.txt')
        self.assertGreater(sum(1 for ev in evs if ev[1] == 'sched_switch'), 100)
        path = os.path.join(DATA, 'trace_cmd_report.txt')
        self.assertEqual(self.query("select name, value from stats where value > 0 and "
                                    "name not glob '*_duration_ns'", path), [])


if __name__ == '__main__':
    e.main()
