"""End-to-end: the TraceProcessor RPC over HTTP (weft -D / weft server
http), driven with raw HTTP and the protobuf messages written by hand;
and the trace_processor_shell subcommands (weft query, weft interactive)."""
import http.client
import json
import os
import socket
import struct
import subprocess
import time
import unittest

import weft_e2e as e

CELL_NULL, CELL_VARINT, CELL_FLOAT64, CELL_STRING, CELL_BLOB = 1, 2, 3, 4, 5


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def json_trace(*slices):
    events = [{'ph': 'X', 'pid': 1, 'tid': 1, 'ts': ts, 'dur': dur, 'name': name}
              for name, ts, dur in slices]
    return json.dumps({'traceEvents': events}).encode()


def packed_varints(data):
    out, i = [], 0
    while i < len(data):
        v, i = e.read_varint(data, i)
        out.append(v - (1 << 64) if v >= 1 << 63 else v)
    return out


def decode_batch(data, base):
    """A CellsBatch's fields; base: its offset in the response (to check the
    float64 payload's alignment)."""
    batch = {'cells': b'', 'varints': [], 'doubles': [], 'blobs': [], 'strings': None,
             'last': False, 'float_offset': None}
    i = 0
    while i < len(data):
        start = i
        tag, i = e.read_varint(data, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = e.read_varint(data, i)
            if number == 6:
                batch['last'] = bool(value)
            continue
        n, i = e.read_varint(data, i)
        payload = data[i:i + n]
        if number == 1:
            batch['cells'] += payload
        elif number == 2:
            batch['varints'] += packed_varints(payload)
        elif number == 3:
            batch['doubles'] += list(struct.unpack('<%dd' % (n // 8), payload))
            batch['float_offset'] = base + i
        elif number == 4:
            batch['blobs'].append(payload)
        elif number == 5:
            batch['strings'] = payload
        i += n
        del start
    return batch


def decode_query_result(data):
    """(column names, rows, error, batches) of a QueryResult."""
    columns, batches, error, i = [], [], None, 0
    while i < len(data):
        tag, i = e.read_varint(data, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, i = e.read_varint(data, i)
            continue
        if wire == 1:
            i += 8
            continue
        n, i = e.read_varint(data, i)
        payload = data[i:i + n]
        if number == 1:
            columns.append(payload.decode())
        elif number == 2:
            error = payload.decode()
        elif number == 3:
            batches.append(decode_batch(payload, i))
        i += n
    values = []
    for b in batches:
        its = {CELL_VARINT: iter(b['varints']), CELL_FLOAT64: iter(b['doubles']),
               CELL_BLOB: iter(b['blobs']),
               CELL_STRING: iter((b['strings'] or b'').split(b'\0')[:-1])}
        for t in b['cells']:
            v = None if t == CELL_NULL else next(its[t])
            values.append(v.decode() if t == CELL_STRING else v)
    width = len(columns) or 1
    rows = [tuple(values[k:k + width]) for k in range(0, len(values), width)]
    return columns, rows, error, batches


class Server:
    """A weft RPC server on a free port, killed at the end."""

    def __init__(self, *args):
        self.port = free_port()
        self.proc = subprocess.Popen([e.WEFT, *args, '--http-port', str(self.port)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.time() + 20
        while True:
            try:
                self.request('GET', '/status')
                return
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise AssertionError('the server did not start')
                time.sleep(0.05)

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()

    def query(self, sql):
        status, _, body = self.request('POST', '/query', e.pb_bytes(1, sql))
        assert status == 200, status
        return decode_query_result(body)

    def load(self, data, pieces=1):
        step = max(1, len(data) // pieces)
        for k in range(0, len(data), step):
            status, _, body = self.request('POST', '/parse', data[k:k + step])
            assert status == 200 and body == b'', (status, body)
        assert self.request('GET', '/notify_eof')[0] == 200

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stderr.close()


class RpcTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.srv = Server('-D')

    def tearDown(self):
        self.srv.stop()
        super().tearDown()

    def status(self):
        status, headers, body = self.srv.request('GET', '/status')
        self.assertEqual(status, 200)
        self.assertEqual(headers['Content-Type'], 'application/x-protobuf')
        return {f[0]: f[2] for f in e.proto_fields(body)}

    def test_status_and_streamed_parse(self):
        fields = self.status()
        self.assertEqual(fields[1], e.pb_bytes(1, ''))          # no trace yet
        self.assertEqual(fields[3], e.pb_int(3, 14))            # api_version
        self.assertIn(b'weft', fields[2])
        self.srv.load(json_trace(('a', 1, 2), ('b', 5, 3)), pieces=7)
        self.assertEqual(self.status()[1], e.pb_bytes(1, 'Unnamed trace (0 MB)'))
        cols, rows, err, _ = self.srv.query('select name, ts, dur from slice order by ts')
        self.assertIsNone(err)
        self.assertEqual(cols, ['name', 'ts', 'dur'])
        self.assertEqual(rows, [('a', 1000, 2000), ('b', 5000, 3000)])

    def test_cell_types(self):
        self.srv.load(json_trace(('a', 1, 2)))
        cols, rows, err, batches = self.srv.query(
            "select 9223372036854775807 as big, -9223372036854775808 as small, -1 as neg, "
            "2.5 as d, -0.125 as d2, 'x' as s, '' as empty, null as n, x'00ff' as b")
        self.assertIsNone(err)
        self.assertEqual(cols, ['big', 'small', 'neg', 'd', 'd2', 's', 'empty', 'n', 'b'])
        self.assertEqual(rows, [(9223372036854775807, -9223372036854775808, -1, 2.5,
                                 -0.125, 'x', '', None, b'\x00\xff')])
        self.assertEqual(len(batches), 1)
        self.assertTrue(batches[0]['last'])
        self.assertEqual(batches[0]['float_offset'] % 8, 0)

    def test_last_statement_is_the_answer(self):
        cols, rows, err, _ = self.srv.query('select 1 as a; select 2 as b, 3 as c')
        self.assertIsNone(err)
        self.assertEqual((cols, rows), (['b', 'c'], [(2, 3)]))

    def statement_fields(self, sql):
        """(statement_count, statement_with_output_count, last_statement_sql,
        error) of the query's QueryResult (the fields of its first message)."""
        status, _, body = self.srv.request('POST', '/query', e.pb_bytes(1, sql))
        self.assertEqual(status, 200)
        got = {}
        for number, wire, raw in e.proto_fields(body):
            tag_len = len(e.varint(number << 3 | wire))
            if number in (4, 5):
                got.setdefault(number, e.read_varint(raw, tag_len)[0])
            elif number in (2, 6):
                n, j = e.read_varint(raw, tag_len)
                got.setdefault(number, raw[j:j + n].decode())
        return got.get(4), got.get(5), got.get(6), got.get(2)

    def test_statement_fields(self):
        cases = [
            ('select 1 as a; select 2 as b', 2, 2, 'select 2 as b'),
            ('create table t as select 1 x;  \n select * from t;  -- c\n', 2, 1,
             'select * from t'),
            ('select 1; create table u(x int)', 2, 1, 'create table u(x int)'),
            ('select 1 as suppress_query_output; select 2', 2, 1, 'select 2'),
            ('select 1;;  ;select 2', 2, 2, 'select 2'),
            ('/* c */ select 1', 1, 1, 'select 1'),
            ("select ';' as s, \"a;b\" is null; select 2 /* ; */ as x -- ;", 2, 2,
             'select 2 /* ; */ as x'),
            ('create table tt(x); create temp trigger tr after insert on tt begin '
             'select 1; select 2; end; select 5', 3, 1, 'select 5'),
        ]
        for sql, count, outputs, last in cases:
            self.assertEqual(self.statement_fields(sql), (count, outputs, last, None), sql)
        count, outputs, last, err = self.statement_fields(
            'select 1; select * from nosuch; select 3')
        self.assertEqual((count, outputs, last), (0, 0, ''))
        self.assertIn('no such table: nosuch', err)

    def test_batches_of_whole_rows(self):
        # 30000 rows of 2 cells: over 50000 cells, so two batches at least,
        # each of whole rows, only the last marked.
        cols, rows, err, batches = self.srv.query(
            'with recursive n(i) as (select 0 union all select i + 1 from n where i < 29999) '
            'select i, i * 0.5 as half from n')
        self.assertIsNone(err)
        self.assertEqual(len(rows), 30000)
        self.assertEqual(rows[29999], (29999, 14999.5))
        self.assertGreaterEqual(len(batches), 2)
        self.assertEqual([b['last'] for b in batches], [False] * (len(batches) - 1) + [True])
        for b in batches:
            self.assertEqual(len(b['cells']) % 2, 0)
            self.assertLessEqual(len(b['cells']), 50000)
        self.assertEqual(batches[0]['float_offset'] % 8, 0)

    def test_sql_error(self):
        cols, rows, err, batches = self.srv.query('select * from no_such_table')
        self.assertEqual((cols, rows), ([], []))
        self.assertIn('no such table: no_such_table', err)
        self.assertIn('Traceback', err)
        self.assertTrue(batches[-1]['last'])
        _, _, err, _ = self.srv.query('  \n ')
        self.assertEqual(err, 'No valid SQL to run')

    def test_malformed_query_args(self):
        for body in (b'\x0a\xff\xff', b'\x0a\x05ab', b'\x08', b'\x0b', b'\x00\x01',
                     e.pb_int(1, 5), e.pb_bytes(1, b'select\x001')):
            status, _, data = self.srv.request('POST', '/query', body)
            self.assertEqual(status, 200)
            _, _, err, batches = decode_query_result(data)
            self.assertTrue(err.startswith('malformed QueryArgs'), err)
            self.assertTrue(batches[-1]['last'])
        self.assertEqual(self.srv.query('select 7 as x')[1], [(7,)])

    def test_oversized_requests(self):
        status, headers, body = self.srv.request('POST', '/query', b' ' * (5 << 20))
        self.assertEqual((status, body), (413, b'Request body too big'))
        status, _, body = self.srv.request('POST', '/status', b'x' * (1 << 20))
        self.assertEqual(status, 413)
        # An oversized /parse fails the trace being loaded; the next /parse
        # starts a new one.
        status, _, body = self.srv.request('POST', '/parse', b'{' * (65 << 20))
        self.assertEqual(status, 413)
        _, _, err, _ = self.srv.query('select 7 as x')
        self.assertEqual(err, 'Request body too big')
        self.srv.load(json_trace(('a', 1, 2)))
        self.assertEqual(self.srv.query('select name from slice')[1], [('a',)])
        # A body declared far over any limit is refused before it is sent.
        with socket.create_connection(('127.0.0.1', self.srv.port), timeout=30) as sock:
            sock.sendall(b'POST /parse HTTP/1.1\r\nHost: x\r\n'
                         b'Content-Length: 4294967296\r\n\r\n')
            reply = b''
            while chunk := sock.recv(4096):
                reply += chunk
        self.assertTrue(reply.startswith(b'HTTP/1.1 413'), reply)
        self.assertEqual(self.srv.query('select 7 as x')[1], [(7,)])

    def test_cors(self):
        for origin in ('https://ui.perfetto.dev', 'http://localhost:10000',
                       'http://127.0.0.1:10000'):
            status, headers, _ = self.srv.request('GET', '/status', headers={'Origin': origin})
            self.assertEqual(status, 200)
            self.assertEqual(headers['Access-Control-Allow-Origin'], origin)
            self.assertEqual(headers['Vary'], 'Origin')
        for origin in ('https://evil.example', 'http://localhost:3000', 'null',
                       'https://ui.perfetto.dev.evil.example'):
            status, headers, body = self.srv.request('GET', '/status',
                                                     headers={'Origin': origin})
            self.assertEqual((status, body), (403, b'Origin not allowed'))
            self.assertNotIn('Access-Control-Allow-Origin', headers)
        status, headers, _ = self.srv.request(
            'OPTIONS', '/query', headers={'Origin': 'https://ui.perfetto.dev',
                                          'Access-Control-Request-Method': 'POST'})
        self.assertEqual(status, 204)
        self.assertEqual(headers['Access-Control-Allow-Origin'], 'https://ui.perfetto.dev')
        self.assertEqual(headers['Access-Control-Allow-Methods'], 'POST, GET, OPTIONS')
        self.assertEqual(headers['Access-Control-Allow-Private-Network'], 'true')
        status, headers, _ = self.srv.request('OPTIONS', '/query',
                                              headers={'Origin': 'https://evil.example'})
        self.assertEqual(status, 204)
        self.assertNotIn('Access-Control-Allow-Origin', headers)
        status, headers, _ = self.srv.request('GET', '/status')  # no Origin: tools
        self.assertNotIn('Access-Control-Allow-Origin', headers)

    def test_unknown_endpoints(self):
        for path in ('/nothing', '/status/x', '/websocket/x'):
            self.assertEqual(self.srv.request('GET', path)[0], 404)
        # /websocket without the upgrade handshake (test_rpc_stream.py has it).
        self.assertEqual(self.srv.request('GET', '/websocket')[0], 400)
        status, headers, body = self.srv.request('GET', '/')  # the web view's page
        self.assertEqual((status, headers['Content-Type']), (200, 'text/html; charset=utf-8'))
        self.assertIn(b'weft', body)
        self.assertEqual(self.status()[3], e.pb_int(3, 14))

    def test_restore_initial_tables(self):
        self.srv.load(json_trace(('a', 1, 2)))
        self.srv.query('create table mine(x int); create view my_view as select 1 as y')
        self.assertEqual(self.srv.query('select count(*) from my_view')[1], [(1,)])
        self.assertEqual(self.srv.request('POST', '/restore_initial_tables')[0], 200)
        _, _, err, _ = self.srv.query('select * from mine')
        self.assertIn('no such table: mine', err)
        _, _, err, _ = self.srv.query('select * from my_view')
        self.assertIn('no such table: my_view', err)
        self.assertEqual(self.srv.query('select name from slice')[1], [('a',)])

    def test_parse_after_eof_starts_a_new_trace(self):
        self.srv.load(json_trace(('a', 1, 2)))
        self.srv.load(json_trace(('b', 1, 2), ('c', 4, 2)))
        self.assertEqual(self.srv.query('select name from slice order by ts')[1],
                         [('b',), ('c',)])

    def test_bad_trace(self):
        self.srv.load(b'\x00\x01 not a trace at all \xff' * 10)
        _, _, err, _ = self.srv.query('select 1')
        self.assertIn('Unknown trace type', err)
        self.srv.load(json_trace(('ok', 1, 2)))
        self.assertEqual(self.srv.query('select name from slice')[1], [('ok',)])


class ServerLifeTest(e.TempDirTest):
    def test_preloaded_trace_and_server_subcommand(self):
        path = e.write_temp(self.dir, 't.json', json_trace(('pre', 1, 2)))
        srv = Server('server', 'http', path)
        try:
            self.assertEqual(srv.query('select name from slice')[1], [('pre',)])
            _, _, body = srv.request('GET', '/status')
            self.assertIn(e.pb_bytes(1, path), body)
        finally:
            srv.stop()

    def test_idle_timeout_stops_the_server(self):
        srv = Server('server', 'http', '--idle-timeout', '1s')
        try:
            srv.proc.wait(timeout=10)
            self.assertEqual(srv.proc.returncode, 0)
        finally:
            srv.stop()

    def test_idle_timeout_waits_for_a_long_query(self):
        srv = Server('server', 'http', '--idle-timeout', '1')
        try:
            _, rows, err, _ = srv.query(
                'with recursive n(i) as (select 0 union all select i + 1 from n '
                'where i < 8000000) select count(*) as c from n')
            self.assertIsNone(err)
            self.assertEqual(rows, [(8000001,)])
            srv.proc.wait(timeout=10)
            self.assertEqual(srv.proc.returncode, 0)
        finally:
            srv.stop()

    def test_bad_flags(self):
        for args in (['-D', '--http-port', '0'], ['-D', '--http-port', 'x'],
                     ['server', 'http', '--idle-timeout', '5d'], ['server', 'ftp'],
                     ['server', 'unix'], ['query', '--remote', 'x', 'a.json', 'select 1'],
                     ['server'], ['-D', '--ip-address', 'nowhere', '--http-port', '1']):
            rc, _, err = e.run(*args, timeout=10)
            self.assertNotEqual(rc, 0, args)
            self.assertIn('weft', err)


class SubcommandTest(e.TempDirTest):
    def test_query(self):
        a = e.write_temp(self.dir, 'a.json', json_trace(('a', 1, 2)))
        b = e.write_temp(self.dir, 'b.json', json_trace(('b', 5, 2)))
        sql = 'select name from slice order by name'
        expected = '"name"\n"a"\n"b"\n'
        self.assertEqual(e.run('query', a, b, sql)[1], expected)
        f = e.write_temp(self.dir, 'q.sql', sql)
        self.assertEqual(e.run('query', '-f', f, a, b)[1], expected)
        self.assertEqual(e.run('query', a, b, stdin=sql.encode())[1], expected)
        self.assertEqual(e.run('query', '-f', '-', a, b, stdin=sql.encode())[1], expected)
        self.assertEqual(e.run('query', '--full-sort', '--no-ftrace-raw', a, 'select 1 as x')[1],
                         '"x"\n1\n')
        rc, out, _ = e.run('query', '--help')
        self.assertEqual(rc, 0)
        self.assertIn('usage: weft query', out)

    def test_query_then_interactive_and_interactive(self):
        a = e.write_temp(self.dir, 'a.json', json_trace(('a', 1, 2)))
        rc, out, _ = e.run('query', '-i', a, 'select 41 as x', stdin=b'select 42 as y;\n')
        self.assertEqual(rc, 0)
        self.assertIn('"x"\n41\n', out)
        self.assertIn('42', out)
        rc, out, _ = e.run('-Q', 'select 43 as z', '-i', a, stdin=b'select 44 as w;\n')
        self.assertEqual(rc, 0)
        self.assertIn('"z"\n43\n', out)
        self.assertIn('44', out)
        rc, out, _ = e.run('interactive', a, stdin=b'select name from slice;\n')
        self.assertEqual(rc, 0)
        self.assertIn('a', out)
        rc, out, _ = e.run('interactive', '--help')
        self.assertIn('usage: weft interactive', out)


if __name__ == '__main__':
    e.main()
