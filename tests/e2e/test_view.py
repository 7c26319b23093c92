"""`weft view`: the web view's endpoints (docs/view.md) against a running
`weft view --port 0` on a two-machine merge: a generated proto trace (the
phone) and a Chrome JSON trace written here (the laptop) placed against it
with --sync/--offset."""
import http.client
import json
import os
import subprocess
import sys
import time
import unittest

import gen_traces
import weft_e2e as e

LAPTOP_OFFSET = 999_000_000_000  # the JSON trace's 1 ms reads 1000 s + 1 ms


def laptop_trace():
    """Slices with args and a flow, a counter; times in µs."""
    ev = [
        {'ph': 'M', 'name': 'process_name', 'pid': 7, 'tid': 7, 'args': {'name': 'browser'}},
        {'ph': 'M', 'name': 'thread_name', 'pid': 7, 'tid': 8, 'args': {'name': 'main'}},
        {'ph': 'X', 'pid': 7, 'tid': 8, 'ts': 1000, 'dur': 10, 'name': 'short',
         'args': {'color': 'red'}},
        {'ph': 'X', 'pid': 7, 'tid': 8, 'ts': 1010, 'dur': 5000, 'name': 'long',
         'bind_id': '0x5', 'flow_out': True},
        {'ph': 'X', 'pid': 7, 'tid': 8, 'ts': 1020, 'dur': 100, 'name': 'child'},
        {'ph': 'X', 'pid': 7, 'tid': 9, 'ts': 3000, 'dur': 200, 'name': 'worker',
         'bind_id': '0x5', 'flow_in': True},
        {'ph': 'C', 'pid': 7, 'ts': 1000, 'name': 'mem', 'args': {'value': 5}},
        {'ph': 'C', 'pid': 7, 'ts': 2000, 'name': 'mem', 'args': {'value': 9}},
        {'ph': 'C', 'pid': 7, 'ts': 4000, 'name': 'mem', 'args': {'value': 2}},
    ]
    return json.dumps({'traceEvents': ev})


class View:
    """A `weft view` on a free port, stopped at the end (and by its idle
    timeout if the test dies)."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [e.WEFT, 'view', '--port', '0', '--idle-timeout', '120', '--quiet', *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        if not line.startswith('weft view: http://'):
            self.stop()
            raise AssertionError('no URL printed: %r' % line)
        self.url = line.split()[-1]
        host_port = self.url.split('//')[1].rstrip('/')
        self.host, port = host_port.rsplit(':', 1)
        self.port = int(port)

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()

    def get(self, path, status=200):
        code, _, body = self.request('GET', path)
        assert code == status, (path, code, body)
        return json.loads(body)

    def query(self, sql):
        code, _, body = self.request('POST', '/view/query', sql.encode())
        assert code == 200, (code, body)
        return json.loads(body)['rows']

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()


class ViewTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = e.tempfile.TemporaryDirectory()
        d = cls.tmp.name
        cls.phone = e.write_temp(d, 'phone.pftrace', gen_traces.proto_trace(150_000)[0])
        cls.laptop = e.write_temp(d, 'laptop.json', laptop_trace())
        cls.merge_flags = ['--machine', 'phone.pftrace=phone', '--machine', 'laptop.json=laptop',
                           '--sync', 'laptop.json=phone.pftrace',
                           '--offset', 'laptop.json=%d' % LAPTOP_OFFSET]
        cls.view = View(*cls.merge_flags, cls.phone, cls.laptop)
        cls.tracks = cls.view.get('/view/tracks')

    @classmethod
    def tearDownClass(cls):
        cls.view.stop()
        cls.tmp.cleanup()

    def track(self, kind, name=None, machine_name=None):
        machines = {m['id']: m['name'] for m in self.tracks['machines']}
        threads = {t['id']: t['name'] for t in self.tracks['threads']}
        for t in self.tracks['tracks']:
            if t['kind'] != kind or (machine_name and machines[t['machine']] != machine_name):
                continue
            label = threads.get(t['utid'], '') if t['utid'] >= 0 else t['name']
            if name is None or label.startswith(name) or t['name'] == name:
                return t
        raise AssertionError('no %s track %s' % (kind, name))

    def slice_ts(self, name):
        return self.view.query("select ts from slice where name = '%s'" % name)[0][0]

    def test_url_is_loopback(self):
        self.assertTrue(self.view.url.startswith('http://127.0.0.1:'))

    def test_the_page_origin_only(self):
        def post(origin, host=None):
            headers = {'Origin': origin}
            if host:
                headers['Host'] = host
            return self.view.request('POST', '/view/query', b'select 1', headers)[0]
        port = self.view.port
        self.assertEqual(post('http://127.0.0.1:%d' % port), 200)  # the page's own
        self.assertEqual(post('http://localhost:%d' % port, 'localhost:%d' % port), 200)
        self.assertEqual(post('https://evil.example'), 403)
        self.assertEqual(post('http://127.0.0.1:%d' % (port + 1)), 403)
        # A name an attacker's DNS points at 127.0.0.1 is not the page's.
        self.assertEqual(post('http://evil.example:%d' % port, 'evil.example:%d' % port), 403)

    def test_page_and_assets(self):
        for path, kind in (('/', 'text/html'), ('/app.js', 'text/javascript'),
                           ('/style.css', 'text/css')):
            status, headers, body = self.view.request('GET', path)
            self.assertEqual(status, 200)
            self.assertTrue(headers['Content-Type'].startswith(kind))
            self.assertGreater(len(body), 100)
        self.assertNotIn(b'http://', self.view.request('GET', '/')[2].replace(
            b'http://127', b''))  # nothing loaded from the internet

    def test_tracks_grouped_by_machine(self):
        names = {m['name'] for m in self.tracks['machines']}
        self.assertTrue({'phone', 'laptop'} <= names)
        kinds = {t['kind'] for t in self.tracks['tracks']}
        self.assertEqual(kinds, {'slices', 'cpu', 'counter'})
        self.track('cpu', machine_name='phone')
        self.track('slices', 'main', 'laptop')
        self.track('counter', 'mem', 'laptop')
        for t in self.tracks['tracks']:
            if t['utid'] >= 0:
                thread = next(x for x in self.tracks['threads'] if x['id'] == t['utid'])
                self.assertEqual(thread['machine'], t['machine'])

    def summary(self, start, end, px, tracks):
        return self.view.get('/view/summary?start=%d&end=%d&px=%d&tracks=%s' % (
            start, end, px, ','.join(str(t['vid']) for t in tracks)))

    def test_summary_one_bucket_per_pixel(self):
        t = self.track('slices', 'thread')  # a phone thread with nested slices
        s = self.summary(self.tracks['start'], self.tracks['end'], 400, [t])
        runs = s['tracks'][0]['runs']
        self.assertTrue(runs)
        by_lane = {}
        for p0, p1, depth, sid, name, _ in runs:
            self.assertTrue(0 <= p0 <= p1 < 400)
            self.assertLess(name, len(s['names']))
            by_lane.setdefault(depth, []).append((p0, p1))
        for spans in by_lane.values():  # no pixel twice in a lane
            spans.sort()
            for a, b in zip(spans, spans[1:]):
                self.assertLess(a[1], b[0])
        self.assertLess(len(runs), 400 * (t['max_depth'] + 1) + 1)

    def test_summary_levels_of_detail_answer_as_the_exact_scan(self):
        # Every track of the phone at the widest zoom and at 3 px: lanes of
        # thousands of slices, where the summary skips through the pyramid.
        self.assertGreaterEqual(self.tracks['index_ms'], 0)
        for px in (3, 1600):
            path = '/view/summary?start=%d&end=%d&px=%d' % (
                self.tracks['start'], self.tracks['end'], px)
            self.assertEqual(self.view.get(path), self.view.get(path + '&exact=1'))

    def test_summary_longest_slice_wins_a_shared_pixel(self):
        t = self.track('slices', 'main', 'laptop')
        short = self.slice_ts('short')
        # One pixel of 20 µs holds 'short' (10 µs) and the start of 'long'.
        s = self.summary(short, short + 40_000, 2, [t])
        names = s['names']
        lane0 = [(r[0], r[1], names[r[4]]) for r in s['tracks'][0]['runs'] if r[2] == 0]
        self.assertEqual(lane0, [(0, 1, 'long')])

    def test_summary_narrow_zoom_shows_slices_started_before(self):
        t = self.track('slices', 'main', 'laptop')
        long_ts = self.slice_ts('long')
        start = long_ts + 2_000_000  # inside 'long', after 'child'
        s = self.summary(start, start + 1_000_000, 1000, [t])
        runs = s['tracks'][0]['runs']
        self.assertEqual([(r[0], r[1], s['names'][r[4]]) for r in runs], [(0, 999, 'long')])

    def test_counter_buckets(self):
        t = self.track('counter', 'mem', 'laptop')
        first = self.view.query("select min(ts) from counter where track_id = %d" % t['id'])[0][0]
        s = self.summary(first + 500_000, first + 4_000_000, 7, [t])
        buckets = s['tracks'][0]['buckets']
        # 0.5 ms a pixel: the value in effect at the start (5) at pixel 0,
        # 9 (at 1 ms) at pixel 1, 2 (at 3 ms) at pixel 5.
        self.assertEqual(buckets, [[0, 5, 5, 5], [1, 9, 9, 9], [5, 2, 2, 2]])

    def test_slice_details_and_args(self):
        sid = self.view.query("select id from slice where name = 'short'")[0][0]
        d = self.view.get('/view/slice?id=%d' % sid)
        row = dict(zip(d['slice']['columns'], d['slice']['rows'][0]))
        self.assertEqual((row['name'], row['dur'], row['thread_name']), ('short', 10000, 'main'))
        self.assertIn(['args.color', 'red'], d['args']['rows'])

    def test_flows(self):
        f = self.view.get('/view/flows?start=%d&end=%d' % (self.tracks['start'], self.tracks['end']))
        cols = f['columns']
        ids = self.view.query("select id from slice where name in ('long', 'worker') order by ts")
        self.assertIn([ids[0][0], ids[1][0]],
                      [[r[cols.index('out_id')], r[cols.index('in_id')]] for r in f['rows']])

    def test_box_select(self):
        t = self.track('slices', 'main', 'laptop')
        short = self.slice_ts('short')
        d = self.view.get('/view/select?start=%d&end=%d&tracks=%d' % (short, short + 15_000,
                                                                      t['vid']))
        self.assertEqual(d['totals']['rows'], [[2, 10_000 + 5_000_000]])
        self.assertEqual([r[3] for r in d['slices']['rows']], ['short', 'long'])

    def test_files(self):
        f = self.view.get('/view/files')
        self.assertEqual([i['ref'] for i in f['inputs']], [None, 'phone.pftrace'])
        self.assertEqual([i['machine'] for i in f['inputs']], ['phone', 'laptop'])
        self.assertEqual([i['offset_ns'] for i in f['inputs']], [None, LAPTOP_OFFSET])
        cols = f['table']['columns']
        self.assertEqual(sorted(r[cols.index('trace_type')] for r in f['table']['rows']),
                         ['json', 'proto'])

    def test_query(self):
        self.assertEqual(self.view.query('select 1 as a, \'x\' as b; select 2 as c'), [[2]])
        code, _, body = self.view.request('POST', '/view/query', b'select * from no_such')
        self.assertEqual(code, 400)
        self.assertIn('no such table: no_such', json.loads(body)['error'])
        code, _, body = self.view.request(
            'POST', '/view/query',
            b'with recursive n(x) as (select 1 union all select x + 1 from n where x < 20000) '
            b'select x from n')
        d = json.loads(body)
        self.assertEqual((code, len(d['rows']), d['truncated']), (200, 10000, True))

    def test_query_time_is_bounded(self):
        # No row comes before the end: the watchdog, not the row callback,
        # stops it; the next query runs.
        began = time.time()
        code, _, body = self.view.request(
            'POST', '/view/query',
            b'with recursive c(x) as (select 1 union all select x + 1 from c) '
            b'select count(*) from c')
        self.assertEqual(code, 400)
        self.assertIn('ran longer than 10 s', json.loads(body)['error'])
        self.assertLess(time.time() - began, 60)
        self.assertEqual(self.view.query('select 7'), [[7]])

    def test_malformed_requests(self):
        bad = ['/view/summary', '/view/summary?start=1&end=1&px=10',
               '/view/summary?start=a&end=9&px=10', '/view/summary?start=0&end=9&px=0',
               '/view/summary?start=0&end=9&px=99999999',
               '/view/summary?start=0&end=9&px=10&tracks=x',
               '/view/summary?start=0&end=9&px=10&tracks=99999999',
               '/view/summary?start=0&end=9&px=10&tracks=-1',
               '/view/slice?id=', '/view/slice?id=1x', '/view/flows?start=5&end=1',
               '/view/select?start=0&end=10&tracks=1,,2', '/view/remerge?file=0',
               '/view/remerge?file=9&offset_ns=1', '/view/remerge?file=-1&offset_ns=1',
               '/view/remerge?file=0&offset_ns=5',  # the phone is the reference
               '/view/remerge?file=1&ref=1', '/view/remerge?file=1&ref=7',
               '/view/remerge?file=1&ref=x', '/view/remerge?file=1&machine=',
               '/view/remerge?file=1&machine=' + 'm' * 200]
        for path in bad:
            code, headers, body = self.view.request('GET', path)
            self.assertEqual(code, 400, path)
            self.assertEqual(headers['Content-Type'], 'application/json')
            self.assertTrue(json.loads(body)['error'], path)
        self.assertEqual(self.view.request('POST', '/view/query', b'')[0], 400)
        self.assertEqual(self.view.request('POST', '/view/query', b'select\0 1')[0], 400)
        self.assertEqual(self.view.request('GET', '/view/nothing')[0], 404)
        self.assertEqual(self.view.request('GET', '/view/' + 'x' * 5000)[0], 404)
        self.assertEqual(self.view.query('select 1'), [[1]])  # still serving


def busy_trace(threads=4, per_thread=80_000):
    """Enough slices (over the view's 2^18 that a first summary reads
    straight from the stored columns) on a few threads, two levels deep,
    with a flow from the first thread to the second; times in µs."""
    ev = ['{"ph":"X","pid":1,"tid":%d,"ts":%d,"dur":%d,"name":"s%d"}'
          % (tid, i * 10 + (i % 2), 8 if i % 2 == 0 else 3, i % 5)
          for tid in range(1, threads + 1) for i in range(per_thread)]
    ev.append('{"ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"name":"from","bind_id":"0x1",'
              '"flow_out":true}')
    ev.append('{"ph":"X","pid":1,"tid":2,"ts":20,"dur":1,"name":"to","bind_id":"0x1",'
              '"flow_in":true}')
    return '{"traceEvents":[' + ','.join(ev) + ']}'


def rpc_server_view(trace, wait_s=60):
    """`weft server http` on a free port holding `trace`, and a View of it
    once /view/tracks answers: (the process, the view, its tracks)."""
    import socket
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([e.WEFT, 'server', 'http', '--port', str(port),
                             '--idle-timeout', '60', '--quiet', trace],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    view = View.__new__(View)
    view.host, view.port, view.proc = '127.0.0.1', port, None
    deadline = time.time() + wait_s
    while True:
        try:
            return proc, view, view.get('/view/tracks')
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                proc.wait()
                raise AssertionError('weft server http did not answer')
            time.sleep(0.05)


class FirstSummaryTest(unittest.TestCase):
    """The first summary of many unwritten slices is read from the stored
    columns while their fill follows in the background: it equals the
    summaries made from the filled lanes, and requests during the fill
    (flows, another trace through the RPC) are answered."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = e.tempfile.TemporaryDirectory()
        cls.busy = e.write_temp(cls.tmp.name, 'busy.json', busy_trace())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_streamed_first_summary_matches_later_ones(self):
        view = View(self.busy)
        try:
            tracks = view.get('/view/tracks')
            self.assertGreater(sum(t['count'] for t in tracks['tracks']), 1 << 18)
            path = '/view/summary?start=%d&end=%d&px=1180' % (tracks['start'], tracks['end'])
            first = view.get(path)
            flows = view.get('/view/flows?start=%d&end=%d' % (tracks['start'], tracks['end']))
            self.assertEqual(len(flows['rows']), 1)
            self.assertEqual(view.get(path), first)
            self.assertEqual(view.get(path + '&exact=1'), first)
            runs = sum(len(t.get('runs', [])) for t in first['tracks'])
            self.assertGreater(runs, 4 * 1000)
            narrow = '/view/summary?start=%d&end=%d&px=500' % (
                tracks['start'] + 10_000, tracks['start'] + 20_000)
            self.assertEqual(view.get(narrow), view.get(narrow + '&exact=1'))
        finally:
            view.stop()

    def test_the_trace_changes_while_a_fill_runs(self):
        proc, view, tracks = rpc_server_view(self.busy)
        try:
            view.get('/view/summary?start=%d&end=%d&px=1180' % (tracks['start'], tracks['end']))
            other = json.dumps({'traceEvents': [
                {'ph': 'X', 'pid': 3, 'tid': 4, 'ts': 5, 'dur': 6, 'name': 'fresh'}]}).encode()
            self.assertEqual(view.request('POST', '/parse', other)[0], 200)
            self.assertEqual(view.request('GET', '/notify_eof')[0], 200)
            fresh = view.get('/view/tracks')
            self.assertEqual(sum(t['count'] for t in fresh['tracks']), 1)
            s = view.get('/view/summary?start=%d&end=%d&px=10' % (fresh['start'], fresh['end'] + 1))
            self.assertEqual(s['names'], ['fresh'])
        finally:
            proc.kill()
            proc.wait()


class RpcServerViewTest(e.TempDirTest):
    """`weft server http` serves the view too, on the trace it holds."""

    def test_view_follows_the_rpc_trace(self):
        laptop = e.write_temp(self.dir, 'laptop.json', laptop_trace())
        proc, view, tracks = rpc_server_view(laptop, wait_s=20)
        try:
            self.assertIn('main 8', [t['name'] for t in tracks['threads']])
            code, _, body = view.request('POST', '/view/remerge?file=0&offset_ns=1')
            self.assertEqual(code, 400)
            self.assertIn('weft view', json.loads(body)['error'])
            self.assertEqual(view.request('GET', '/view/manifest')[0], 400)
            other = json.dumps({'traceEvents': [
                {'ph': 'X', 'pid': 3, 'tid': 4, 'ts': 5, 'dur': 6, 'name': 'fresh'},
                {'ph': 'M', 'name': 'thread_name', 'pid': 3, 'tid': 4,
                 'args': {'name': 'newthread'}}]}).encode()
            self.assertEqual(view.request('POST', '/parse', other)[0], 200)
            self.assertEqual(view.request('GET', '/notify_eof')[0], 200)
            names = [t['name'] for t in view.get('/view/tracks')['threads']]
            self.assertIn('newthread 4', names)
            self.assertNotIn('main 8', names)
        finally:
            proc.kill()
            proc.wait()


class RemergeTest(e.TempDirTest):
    def test_offset_moves_the_file_and_the_manifest_reproduces_it(self):
        phone = e.write_temp(self.dir, 'phone.pftrace', gen_traces.proto_trace(60_000)[0])
        laptop = e.write_temp(self.dir, 'laptop.json', laptop_trace())
        view = View('--machine', 'laptop.json=laptop', phone, laptop)
        try:
            files = view.get('/view/files')
            self.assertEqual([i['path'] for i in files['inputs']], [phone, laptop])
            self.assertEqual(len(files['table']['rows']), 2)
            sql = "select ts from slice where name = 'short'"
            before = view.query(sql)[0][0]
            code, _, body = view.request('POST', '/view/remerge?file=1&offset_ns=%d'
                                         % LAPTOP_OFFSET)
            self.assertEqual(code, 200, body)
            moved = view.query(sql)[0][0]
            self.assertNotEqual(moved, before)
            tracks = view.get('/view/tracks')  # the view follows the new trace
            self.assertLessEqual(tracks['start'], moved)
            self.assertEqual(view.get('/view/files')['inputs'][1]['offset_ns'], LAPTOP_OFFSET)
            code, headers, manifest = view.request('GET', '/view/manifest')
            self.assertEqual(code, 200)
            self.assertIn('perfetto_manifest.json', headers['Content-Disposition'])
        finally:
            view.stop()
        path = e.write_temp(self.dir, 'perfetto_manifest.json', manifest)
        out = e.query(sql, '--manifest', path, phone, laptop)
        self.assertEqual(out.splitlines()[1], str(moved))
        archive = os.path.join(self.dir, 'merged.zip')
        rc, _, err = e.run('merge', '-o', archive, '--manifest', path, phone, laptop)
        self.assertEqual(rc, 0, err)
        self.assertEqual(e.query(sql, archive).splitlines()[1], str(moved))

    def test_machine_and_reference_changes(self):
        phone = e.write_temp(self.dir, 'phone.pftrace', gen_traces.proto_trace(60_000)[0])
        laptop = e.write_temp(self.dir, 'laptop.json', laptop_trace())
        desk = e.write_temp(self.dir, 'desk.json', laptop_trace().replace('"main"', '"desk"'))
        view = View('--sync', 'desk.json=laptop.json', phone, laptop, desk)
        try:
            self.assertEqual([i['ref'] for i in view.get('/view/files')['inputs']],
                             [laptop, phone, 'laptop.json'])
            self.assertEqual(view.request('POST', '/view/remerge?file=2&machine=box')[0], 200)
            machines = [m[0] for m in view.query('select name from machine order by id')]
            self.assertIn('box', machines)
            self.assertEqual(view.request('POST', '/view/remerge?file=2&ref=0&offset_ns=-7')[0],
                             200)
            f = view.get('/view/files')['inputs'][2]
            self.assertEqual((f['ref'], f['offset_ns'], f['machine']), (phone, -7, 'box'))
            manifest = json.loads(view.request('GET', '/view/manifest')[2])
            entry = manifest['perfetto_manifest']['files'][2]
            self.assertEqual(entry['machine'], {'name': 'box'})
            self.assertEqual(entry['clocks']['sync_to']['file'], 'phone.pftrace')
            self.assertEqual(entry['clocks']['offset_ns'], -7)
        finally:
            view.stop()

    def test_remerge_on_top_of_the_manifest(self):
        # The panel starts from the --manifest's settings; a change is made
        # on top of them, and the downloaded manifest holds both.
        phone = e.write_temp(self.dir, 'phone.pftrace', gen_traces.proto_trace(60_000)[0])
        laptop = e.write_temp(self.dir, 'laptop.json', laptop_trace())
        given = e.write_temp(self.dir, 'given.json', json.dumps({'perfetto_manifest': {
            'version': 1, 'note': 'kept', 'files': [
                {'path': 'phone.pftrace', 'machine': {'name': 'phone'}},
                {'path': 'laptop.json', 'machine': {'name': 'laptop'},
                 'clocks': {'sync_to': {'file': 'phone.pftrace'},
                            'offset_ns': LAPTOP_OFFSET}}]}}))
        sql = "select ts from slice where name = 'short'"
        view = View('--manifest', given, phone, laptop)
        try:
            inputs = view.get('/view/files')['inputs']
            self.assertEqual([(i['machine'], i['offset_ns']) for i in inputs],
                             [('phone', None), ('laptop', LAPTOP_OFFSET)])
            self.assertEqual(inputs[1]['ref'], phone)
            before = view.query(sql)[0][0]
            code, _, body = view.request('POST', '/view/remerge?file=1&offset_ns=%d'
                                         % (LAPTOP_OFFSET + 5000))
            self.assertEqual(code, 200, body)
            code, _, body = view.request('POST', '/view/remerge?file=0&machine=handset')
            self.assertEqual(code, 200, body)
            moved = view.query(sql)[0][0]
            self.assertEqual(moved - before, 5000)
            machines = [m[0] for m in view.query('select name from machine order by id')]
            self.assertIn('handset', machines)
            self.assertIn('laptop', machines)  # the manifest's, kept
            code, _, manifest = view.request('GET', '/view/manifest')
            self.assertEqual(code, 200)
        finally:
            view.stop()
        body = json.loads(manifest)['perfetto_manifest']
        self.assertEqual(body['note'], 'kept')
        self.assertEqual(body['files'][0]['machine'], {'name': 'handset'})
        self.assertEqual(body['files'][1]['machine'], {'name': 'laptop'})
        self.assertEqual(body['files'][1]['clocks'], {'sync_to': {'file': 'phone.pftrace'},
                                                      'offset_ns': LAPTOP_OFFSET + 5000})
        path = e.write_temp(self.dir, 'perfetto_manifest.json', manifest)
        self.assertEqual(e.query(sql, '--manifest', path, phone, laptop).splitlines()[1],
                         str(moved))

    def test_remerge_adds_an_entry_the_manifest_lacks(self):
        # The manifest names only the phone: the laptop's change becomes a
        # new entry, pinned to the phone.
        phone = e.write_temp(self.dir, 'phone.pftrace', gen_traces.proto_trace(60_000)[0])
        laptop = e.write_temp(self.dir, 'laptop.json', laptop_trace())
        given = e.write_temp(self.dir, 'given.json', json.dumps({'perfetto_manifest': {
            'version': 1, 'files': [{'path': 'phone.pftrace', 'machine': {'name': 'phone'}}]}}))
        sql = "select ts from slice where name = 'short'"
        view = View('--manifest', given, phone, laptop)
        try:
            code, _, body = view.request('POST', '/view/remerge?file=1&offset_ns=%d&machine=lap'
                                         % LAPTOP_OFFSET)
            self.assertEqual(code, 200, body)
            moved = view.query(sql)[0][0]
            manifest = view.request('GET', '/view/manifest')[2]
        finally:
            view.stop()
        files = json.loads(manifest)['perfetto_manifest']['files']
        self.assertEqual(files[0], {'path': 'phone.pftrace', 'machine': {'name': 'phone'}})
        self.assertEqual(files[1], {'path': 'laptop.json', 'machine': {'name': 'lap'},
                                    'clocks': {'sync_to': {'file': 'phone.pftrace',
                                                           'clock': 'BOOTTIME'},
                                               'offset_ns': LAPTOP_OFFSET}})
        path = e.write_temp(self.dir, 'perfetto_manifest.json', manifest)
        self.assertEqual(e.query(sql, '--manifest', path, phone, laptop).splitlines()[1],
                         str(moved))

    def test_idle_timeout_stops_the_view(self):
        laptop = e.write_temp(self.dir, 'laptop.json', laptop_trace())
        start = time.time()
        rc, out, _ = e.run('view', '--port', '0', '--idle-timeout', '1', laptop, timeout=30)
        self.assertEqual(rc, 0)
        self.assertIn('http://127.0.0.1:', out)
        self.assertLess(time.time() - start, 20)

    def test_usage(self):
        rc, _, err = e.run('view')
        self.assertEqual(rc, 2)
        self.assertIn('needs at least one trace', err)
        rc, out, _ = e.run('view', '--help')
        self.assertIn('usage: weft view', out)


if __name__ == '__main__':
    e.main()
