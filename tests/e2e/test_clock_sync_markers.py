"""End-to-end: clock-sync markers. A Chrome JSON trace and a systrace of the
same run, each recording one clock sync on its own clock (JSON "ph": "c"
with args.sync_id and issue_ts; the systrace's "trace_event_clock_sync:"
line with name= or parent_ts=), merge with no manifest where a manifest
relating the two would put them."""
import json
import os
import zipfile

import weft_e2e as e

SLICES = 'select name, ts from slice order by name'
# The JSON clock reads 4500 us at the sync (the midpoint of issue_ts 4000 and
# ts 5000) when the systrace's MONOTONIC reads 2.001 s.
SYNC_OFFSET_NS = 2001000000 - 4500000


def chrome_json(with_marker=True):
    events = [{'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 1000, 'dur': 10, 'name': 'json_work'}]
    if with_marker:
        events.append({'ph': 'c', 'pid': 1, 'tid': 1, 'ts': 5000, 'cat': '__metadata',
                       'name': 'clock_sync', 'args': {'sync_id': 'sync-1', 'issue_ts': 4000}})
    return json.dumps({'traceEvents': events})


def systrace(marker):
    lines = ['# tracer: nop', '#',
             '           foo-10    [000] ...1  2.000500: tracing_mark_write: B|10|sys_work',
             '           foo-10    [000] ...1  2.000600: tracing_mark_write: E|10']
    if marker:
        lines.append('        chrome-3    [000] ...1  2.001000: tracing_mark_write: '
                     'trace_event_clock_sync: ' + marker)
    return '\n'.join(lines) + '\n'


class ClockSyncMarkerTest(e.TempDirTest):
    def files(self, marker, with_json_marker=True):
        return (e.write_temp(self.dir, 'app.json', chrome_json(with_json_marker)),
                e.write_temp(self.dir, 'sys.txt', systrace(marker)))

    def manifest_zip(self, json_path, sys_path):
        body = {'version': 1, 'files': [
            {'path': 'app.json', 'clocks': {'sync_to': {'file': 'sys.txt'},
                                            'offset_ns': SYNC_OFFSET_NS}},
            {'path': 'sys.txt'}]}
        path = os.path.join(self.dir, 'with_manifest.zip')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('manifest.json', json.dumps({'perfetto_manifest': body}))
            z.write(json_path, 'app.json')
            z.write(sys_path, 'sys.txt')
        return path

    def slices(self, *inputs):
        out = e.query(SLICES, *inputs)
        return {name.strip('"'): int(ts) for name, ts in
                (line.split(',') for line in out.split()[1:])}

    def assert_where_manifest_puts_them(self, json_path, sys_path):
        by_markers = self.slices(json_path, sys_path)
        by_manifest = self.slices(self.manifest_zip(json_path, sys_path))
        self.assertEqual(by_manifest['json_work'], 2001000000 - 3500000)
        for name in ('json_work', 'sys_work'):
            self.assertLessEqual(abs(by_markers[name] - by_manifest[name]), 1000, name)

    def test_named_sync_markers_relate_json_and_systrace(self):
        json_path, sys_path = self.files('name=sync-1')
        self.assert_where_manifest_puts_them(json_path, sys_path)
        # Either file order.
        self.assertEqual(self.slices(sys_path, json_path), self.slices(json_path, sys_path))

    def test_parent_ts_marker_relates_json_and_systrace(self):
        json_path, sys_path = self.files('parent_ts=0.004500', with_json_marker=False)
        self.assert_where_manifest_puts_them(json_path, sys_path)

    def test_marker_is_recorded_in_clock_snapshot(self):
        out = e.query('select clock_name, clock_value from clock_snapshot',
                      *self.files('name=sync-1'))
        self.assertEqual(out.split()[1:], ['"MONOTONIC",2001000000'])

    def test_marker_across_the_search_window_edge_of_a_large_file(self):
        # Files above 8 MiB are searched for markers in 4 MiB windows (the
        # pages behind given back): a marker whose tag starts just before a
        # window's edge and ends after it is still found.
        marker = ('        chrome-3    [000] ...1  2.001000: tracing_mark_write: '
                  'trace_event_clock_sync: name=sync-1\n')
        tag_at = (4 << 20) - 5
        head = '# tracer: nop\n#\n'
        lines, size, t = [head], len(head), 0
        line_start = tag_at - marker.index('trace_event_clock_sync')
        while True:
            t += 1
            line = '           foo-10    [000] ...1  1.%06d: tracing_mark_write: C|10|n|%d\n' % (t, t)
            if size + len(line) + 80 > line_start:
                break
            lines.append(line)
            size += len(line)
        pad = line_start - size - len('           foo-10    [000] ...1  1.999999: '
                                       'tracing_mark_write: C|10||1\n')
        lines.append('           foo-10    [000] ...1  1.999999: tracing_mark_write: C|10|%s|1\n'
                     % ('p' * pad))
        lines.append(marker)
        body = ''.join(lines)
        self.assertEqual(body.index('trace_event_clock_sync'), tag_at)
        tail, t, size = [], 0, len(body)
        while size < (9 << 20):
            t += 1
            tail.append('           foo-10    [000] ...1  3.%06d: tracing_mark_write: C|10|m|%d\n'
                        % (t % 1000000, t))
            size += len(tail[-1])
        sys_path = e.write_temp(self.dir, 'big.txt', body + ''.join(tail))
        json_path = e.write_temp(self.dir, 'app.json', chrome_json())
        out = e.query('select clock_name, clock_value from clock_snapshot', json_path, sys_path)
        self.assertEqual(out.split()[1:], ['"MONOTONIC",2001000000'])

    def test_files_without_a_matching_marker_behave_as_before(self):
        plain = self.slices(*self.files(None, with_json_marker=False))
        self.assertEqual(plain['json_work'], 1000000)
        self.assertEqual(self.slices(*self.files('name=other-id')), plain)
        self.assertEqual(self.slices(*self.files(None)), plain)
        out = e.query('select count(*) from clock_snapshot', *self.files('name=other-id'))
        self.assertEqual(out.split()[1:], ['0'])

    def test_manifest_placement_wins_over_markers(self):
        json_path, sys_path = self.files('parent_ts=9.0')
        placed = self.slices(self.manifest_zip(json_path, sys_path))
        self.assertEqual(placed['json_work'], 2001000000 - 3500000)


if __name__ == '__main__':
    e.main()
