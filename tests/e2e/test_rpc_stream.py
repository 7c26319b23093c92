"""End-to-end: the TraceProcessor RPC as a stream of TraceProcessorRpc
messages, over the HTTP server's /websocket (as the Perfetto UI speaks
it), over `weft server stdio`, and over `weft server unix` (with
`weft query --remote`). Clients are written here with the standard
library only: a websocket client on a raw socket, the messages by hand."""
import base64
import hashlib
import os
import socket
import struct
import subprocess
import time
import unittest

import weft_e2e as e
from test_rpc import Server, decode_query_result, json_trace

TPM_APPEND, TPM_FINALIZE, TPM_QUERY, TPM_STATUS, TPM_RESET = 1, 2, 3, 10, 11


def rpc(seq, method, field=None, payload=b''):
    """One request, framed as an element of a TraceProcessorRpcStream."""
    msg = e.pb_int(1, seq) + e.pb_int(2, method)
    if field is not None:
        msg += e.pb_bytes(field, payload)
    return e.pb_bytes(1, msg)


def query_rpc(seq, sql):
    return rpc(seq, TPM_QUERY, 103, e.pb_bytes(1, sql))


def split_stream(data):
    """The TraceProcessorRpc messages of a stream, and the bytes left over
    (an incomplete message)."""
    msgs, i = [], 0
    while i < len(data):
        if data[i] != 0x0a:
            raise AssertionError('bad stream tag %r' % data[i:i + 4])
        try:
            n, j = e.read_varint(data, i + 1)
        except IndexError:
            break
        if j + n > len(data):
            break
        msgs.append(data[j:j + n])
        i = j + n
    return msgs, data[i:]


def fields(msg):
    """{number: [value]} of a message: ints for varints, bytes otherwise."""
    out = {}
    for number, wire, raw in e.proto_fields(msg):
        tag_len = len(e.varint(number << 3 | wire))
        if wire == 0:
            value = e.read_varint(raw, tag_len)[0]
        elif wire == 2:
            n, j = e.read_varint(raw, tag_len)
            value = raw[j:j + n]
        else:
            value = raw[tag_len:]
        out.setdefault(number, []).append(value)
    return out


def query_answer(msgs):
    """(columns, rows, error, QueryResult fields) of a query's answer
    messages: their QueryResults concatenated."""
    results = [fields(m)[203][0] for m in msgs]
    cols, rows, err, _ = decode_query_result(b''.join(results))
    return cols, rows, err, fields(b''.join(results))


def is_last(msg):
    result = fields(msg).get(203, [b''])[0]
    return any(fields(b).get(6) == [1] for b in fields(result).get(3, []))


class WebSocket:
    """A websocket client on a raw socket (RFC 6455: masked frames)."""

    def __init__(self, port, path='/websocket'):
        self.sock = socket.create_connection(('127.0.0.1', port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(('GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n'
                           'Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n'
                           'Sec-WebSocket-Version: 13\r\n\r\n' % (path, port, key)).encode())
        self.buf = b''
        while b'\r\n\r\n' not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise AssertionError('no handshake answer')
            self.buf += chunk
        head, self.buf = self.buf.split(b'\r\n\r\n', 1)
        self.head = head.decode()
        want = base64.b64encode(hashlib.sha1(
            (key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').encode()).digest()).decode()
        assert self.head.startswith('HTTP/1.1 101'), self.head
        assert 'sec-websocket-accept: ' + want.lower() in self.head.lower(), self.head
        self.rx = b''

    def send_frame(self, opcode, payload, fin=True, mask=True, rsv=0):
        head = bytes([(0x80 if fin else 0) | rsv | opcode])
        n = len(payload)
        bit = 0x80 if mask else 0
        if n < 126:
            head += bytes([bit | n])
        elif n < 65536:
            head += bytes([bit | 126]) + struct.pack('>H', n)
        else:
            head += bytes([bit | 127]) + struct.pack('>Q', n)
        if mask:
            key = os.urandom(4)
            head += key
            payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + payload)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv_frame(self):
        b0, b1 = self._read(2)
        assert not b1 & 0x80, 'a server frame is masked'
        n = b1 & 0x7f
        if n == 126:
            n = struct.unpack('>H', self._read(2))[0]
        elif n == 127:
            n = struct.unpack('>Q', self._read(8))[0]
        return b0 & 0x0f, self._read(n)

    def recv_rpc(self):
        """The next answer message (binary frames carry the stream)."""
        while True:
            msgs, rest = split_stream(self.rx)
            if msgs:
                self.rx = rest + b''.join(e.pb_bytes(1, m) for m in msgs[1:])
                return msgs[0]
            opcode, payload = self.recv_frame()
            if opcode == 8:
                raise EOFError('closed: %r' % payload)
            assert opcode == 2, opcode
            self.rx += payload

    def query(self, seq, sql):
        self.send_frame(2, query_rpc(seq, sql))
        msgs = [self.recv_rpc()]
        while not is_last(msgs[-1]):
            msgs.append(self.recv_rpc())
        return msgs

    def close(self):
        self.sock.close()


class WebSocketTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.srv = Server('-D')

    def tearDown(self):
        self.srv.stop()
        super().tearDown()

    def test_query_over_websocket(self):
        ws = WebSocket(self.srv.port)
        ws.send_frame(2, rpc(0, TPM_APPEND, 101, json_trace(('a', 1, 2), ('b', 5, 3))))
        answer = fields(ws.recv_rpc())
        self.assertEqual(answer[3], [TPM_APPEND])
        self.assertEqual(answer[1], [0])
        self.assertNotIn(2, fields(answer[201][0]))            # no error
        ws.send_frame(2, rpc(1, TPM_FINALIZE))
        self.assertEqual(fields(ws.recv_rpc())[3], [TPM_FINALIZE])
        msgs = ws.query(2, 'select name, ts, dur from slice order by ts')
        self.assertEqual([fields(m)[1][0] for m in msgs], list(range(2, 2 + len(msgs))))
        cols, rows, err, _ = query_answer(msgs)
        self.assertIsNone(err)
        self.assertEqual((cols, rows), (['name', 'ts', 'dur'], [('a', 1000, 2000),
                                                                 ('b', 5000, 3000)]))
        ws.send_frame(2, rpc(3, TPM_STATUS))
        self.assertIn(b'weft', fields(ws.recv_rpc())[210][0])
        ws.close()
        # The HTTP endpoints see the same session.
        self.assertEqual(self.srv.query('select count(*) from slice')[1], [(2,)])

    def test_fragments_ping_and_split_messages(self):
        ws = WebSocket(self.srv.port)
        ws.send_frame(9, b'hi')
        self.assertEqual(ws.recv_frame(), (10, b'hi'))
        # Two requests in one message, the second cut across two fragments
        # of a second message.
        data = query_rpc(0, 'select 1 as x') + query_rpc(1, 'select 2 as y')
        ws.send_frame(2, data[:30])
        ws.send_frame(2, data[30:40], fin=False)
        ws.send_frame(0, data[40:])
        first = [ws.recv_rpc()]
        second = [ws.recv_rpc()]
        self.assertEqual(query_answer(first)[:2], (['x'], [(1,)]))
        self.assertEqual(query_answer(second)[:2], (['y'], [(2,)]))
        ws.close()

    def test_many_batches_each_a_message(self):
        ws = WebSocket(self.srv.port)
        msgs = ws.query(0, 'with recursive n(i) as (select 1 union all select i + 1 '
                           'from n where i < 60000) select i, i * 2 from n')
        self.assertGreater(len(msgs), 1)
        cols, rows, err, _ = query_answer(msgs)
        self.assertEqual(len(rows), 60000)
        self.assertEqual(rows[-1], (60000, 120000))
        self.assertTrue(is_last(msgs[-1]))
        self.assertFalse(any(is_last(m) for m in msgs[:-1]))
        ws.close()

    def assert_closed_with(self, ws, code):
        opcode, payload = ws.recv_frame()
        while opcode == 2:
            opcode, payload = ws.recv_frame()
        self.assertEqual(opcode, 8)
        self.assertEqual(struct.unpack('>H', payload[:2])[0], code)
        ws.close()

    def still_answers(self):
        ws = WebSocket(self.srv.port)
        self.assertEqual(query_answer(ws.query(0, 'select 7 as z'))[:2], (['z'], [(7,)]))
        ws.close()
        self.assertEqual(self.srv.query('select 8')[1], [(8,)])

    def test_bad_frames_close_cleanly(self):
        cases = [
            (lambda ws: ws.send_frame(2, query_rpc(0, 'select 1'), mask=False), 1002),
            (lambda ws: ws.send_frame(2, b'x', rsv=0x40), 1002),
            (lambda ws: ws.send_frame(0, b'x'), 1002),           # stray continuation
            (lambda ws: ws.send_frame(9, b'x', fin=False), 1002),  # fragmented ping
            (lambda ws: ws.send_frame(1, b'text'), 1003),
            (lambda ws: ws.sock.sendall(b'\x82\xff' + struct.pack('>Q', 1 << 40)), 1009),
        ]
        for send, code in cases:
            ws = WebSocket(self.srv.port)
            send(ws)
            self.assert_closed_with(ws, code)
        self.still_answers()

    def test_bad_rpc_is_a_fatal_error(self):
        for data in (b'\x12\x01x',                               # not field 1
                     e.pb_bytes(1, b'\x08'),                     # truncated seq
                     rpc(1, TPM_QUERY) + rpc(5, TPM_STATUS)):     # seq out of order
            ws = WebSocket(self.srv.port)
            ws.send_frame(2, data)
            msg = ws.recv_rpc()
            while 5 not in fields(msg):
                msg = ws.recv_rpc()
            self.assertTrue(fields(msg)[5][0].startswith(b'RPC'))
            self.assert_closed_with(ws, 1002)
        self.still_answers()

    def test_unknown_method_and_close_frame(self):
        ws = WebSocket(self.srv.port)
        ws.send_frame(2, rpc(0, 99))
        self.assertEqual(fields(ws.recv_rpc())[4], [99])     # invalid_request
        ws.send_frame(8, struct.pack('>H', 1000))
        self.assertEqual(ws.recv_frame(), (8, struct.pack('>H', 1000)))
        ws.close()

    def test_open_websocket_holds_off_the_idle_timeout(self):
        srv = Server('-D', '--idle-timeout', '1')
        try:
            ws = WebSocket(srv.port)
            time.sleep(1.5)
            self.assertIsNone(srv.proc.poll())          # the open websocket is activity
            self.assertEqual(query_answer(ws.query(0, 'select 3 as t'))[:2], (['t'], [(3,)]))
            ws.send_frame(8, struct.pack('>H', 1000))
            self.assertEqual(ws.recv_frame()[0], 8)
            ws.close()
            self.assertEqual(srv.proc.wait(timeout=10), 0)  # idle once it closed
        finally:
            srv.stop()

    def test_handshake_refused_without_upgrade(self):
        status, _, body = self.srv.request('GET', '/websocket')
        self.assertEqual(status, 400)
        status, _, _ = self.srv.request('GET', '/websocket', headers={
            'Origin': 'https://evil.example', 'Upgrade': 'websocket',
            'Connection': 'Upgrade', 'Sec-WebSocket-Key': 'x', 'Sec-WebSocket-Version': '13'})
        self.assertEqual(status, 403)


class HttpRpcTest(e.TempDirTest):
    """POST /rpc: bytes of the stream per request, its seq running across
    requests as one stream."""

    def setUp(self):
        super().setUp()
        self.srv = Server('-D')

    def tearDown(self):
        self.srv.stop()
        super().tearDown()

    def post(self, data):
        status, headers, body = self.srv.request('POST', '/rpc', data)
        self.assertEqual(status, 200)
        msgs, rest = split_stream(body)
        self.assertEqual(rest, b'')
        return msgs

    def test_rpc_endpoint(self):
        data = json_trace(('a', 1, 2))
        msgs = self.post(rpc(1, TPM_APPEND, 101, data) + rpc(2, TPM_FINALIZE))
        self.assertEqual([fields(m)[3][0] for m in msgs], [TPM_APPEND, TPM_FINALIZE])
        msgs = self.post(query_rpc(3, 'select name from slice'))
        self.assertEqual(query_answer(msgs)[:2], (['name'], [('a',)]))
        self.assertEqual(fields(msgs[0])[1], [2])           # answers' seq goes on
        msgs = self.post(rpc(9, TPM_STATUS))                 # out of order: fatal
        self.assertIn(b'ERR:rpc_seq', fields(msgs[-1])[5][0])
        msgs = self.post(rpc(0, TPM_STATUS))                 # a new stream
        self.assertIn(b'weft', fields(msgs[0])[210][0])


class StdioTest(e.TempDirTest):
    def serve(self, *args):
        return subprocess.Popen([e.WEFT, 'server', 'stdio', '--quiet', *args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def test_load_and_query_over_stdio(self):
        proc = self.serve()
        data = json_trace(('a', 1, 2), ('b', 5, 3))
        requests = (rpc(0, TPM_APPEND, 101, data[:20]) + rpc(1, TPM_APPEND, 101, data[20:]) +
                    rpc(2, TPM_FINALIZE) + query_rpc(3, 'select name, dur from slice order by ts'))
        out, _ = proc.communicate(requests, timeout=60)
        self.assertEqual(proc.returncode, 0)
        msgs, rest = split_stream(out)
        self.assertEqual(rest, b'')
        self.assertEqual([fields(m)[3][0] for m in msgs[:3]], [TPM_APPEND, TPM_APPEND, TPM_FINALIZE])
        cols, rows, err, _ = query_answer(msgs[3:])
        self.assertIsNone(err)
        self.assertEqual((cols, rows), (['name', 'dur'], [('a', 2000), ('b', 3000)]))

    def test_preloaded_trace_and_bad_stream(self):
        path = e.write_temp(self.dir, 't.json', json_trace(('x', 1, 2)))
        proc = self.serve(path)
        out, _ = proc.communicate(query_rpc(0, 'select name from slice') + b'\x12\x00',
                                  timeout=60)
        self.assertEqual(proc.returncode, 0)
        msgs, _ = split_stream(out)
        self.assertEqual(query_answer(msgs[:-1])[1], [('x',)])
        self.assertTrue(fields(msgs[-1])[5][0].startswith(b'RPC framing error'))


class UnixTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.env = {'XDG_RUNTIME_DIR': self.dir}
        self.procs = []

    def tearDown(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        super().tearDown()

    def start(self, name, *args):
        proc = subprocess.Popen([e.WEFT, 'server', 'unix', '--name', name, '--quiet', *args],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=dict(os.environ, **self.env))
        self.procs.append(proc)
        record = proc.stdout.readline().decode()
        if not record.startswith('weft-session pid=%d session=%s ' % (proc.pid, name)):
            proc.kill()
            self.fail(record + proc.stderr.read().decode())
        return proc, record

    def remote(self, name, *args, stdin=None):
        return e.run('query', '--remote', name, *args, stdin=stdin, env=self.env)

    def test_session_keeps_a_merged_trace(self):
        a = e.write_temp(self.dir, 'a.json', json_trace(('a1', 1, 2), ('a2', 5, 1)))
        b = e.write_temp(self.dir, 'b.json', json_trace(('b1', 3, 4)))
        proc, record = self.start('m1', a, b)
        self.assertIn('socket-path=%s/weft/m1.sock' % self.dir, record)
        sql = 'select name, ts, dur, 1.5 as d, null as n from slice order by ts'
        rc, out, err = self.remote('m1', sql)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, e.query(sql, a, b))
        # Queries see what earlier ones made: the session is kept.
        self.assertEqual(self.remote('m1', 'create table t as select 42 as v')[0], 0)
        f = e.write_temp(self.dir, 'q.sql', b'select v from t')
        self.assertEqual(self.remote('m1', '-f', f)[1], '"v"\n42\n')
        self.assertEqual(self.remote('m1', stdin=b'select v + 1 as w from t')[1], '"w"\n43\n')
        rc, _, err = self.remote('m1', 'select * from nosuch')
        self.assertEqual(rc, 1)
        self.assertIn('no such table: nosuch', err)
        # A second server of the same name is refused while the first lives.
        rc, _, err = e.run('server', 'unix', '--name', 'm1', env=self.env)
        self.assertEqual(rc, 1)
        self.assertIn('already serves', err)
        proc.terminate()
        proc.wait(timeout=10)
        self.assertFalse(os.path.exists(os.path.join(self.dir, 'weft', 'm1.sock')))
        rc, _, err = self.remote('m1', 'select 1')
        self.assertEqual(rc, 1)
        self.assertIn("no weft session 'm1'", err)

    def test_idle_timeout_and_bad_name(self):
        proc, _ = self.start('idle', '--idle-timeout', '1')
        self.assertEqual(self.remote('idle', 'select 5 as x')[1:], ('"x"\n5\n', ''))
        self.assertEqual(proc.wait(timeout=10), 0)
        rc, _, err = e.run('server', 'unix', '--name', '../x', env=self.env)
        self.assertEqual(rc, 1)
        self.assertIn('bad session name', err)
        self.assertEqual(e.run('server', 'unix', env=self.env)[0], 2)

    def test_daemonize_returns_once_serving(self):
        path = e.write_temp(self.dir, 't.json', json_trace(('d', 1, 2)))
        rc, out, err = e.run('server', 'unix', '--name', 'd1', '--daemonize', '--quiet', path,
                             env=self.env)
        self.assertEqual(rc, 0, err)
        pid = int(out.split()[1].split('=')[1])
        try:
            self.assertEqual(self.remote('d1', 'select name from slice')[1], '"name"\n"d"\n')
        finally:
            os.kill(pid, 15)
        deadline = time.time() + 10
        while os.path.exists(os.path.join(self.dir, 'weft', 'd1.sock')):
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        # A daemon whose trace fails to load reports it and exits 1.
        rc, out, err = e.run('server', 'unix', '--name', 'd2', '--daemonize',
                             os.path.join(self.dir, 'missing.json'), env=self.env)
        self.assertEqual((rc, out), (1, ''))


if __name__ == '__main__':
    e.main()
