#!/usr/bin/env python3
"""/query throughput of the TraceProcessor RPC against the CSV path, in one
run.

    bench/rpc_query.py WEFT TRACE [--rounds 3] [--sql 'select * from slice']

RPC: `weft server http` with TRACE preloaded (loaded once, before timing);
each round POSTs the SQL to /query and reads the whole chunked answer (the
QueryResult batches), timed from the request to the last byte. The rows
are not decoded in Python (that would time Python): their number comes
from a count(*) of the same SQL, and the answer's last batch is checked.

CSV: `weft -Q SQL TRACE --perf-file F` with stdout to /dev/null; F holds
the load and query times apart, and the query time (running the SQL and
printing every row as CSV) is the one compared.

Rounds alternate RPC and CSV; the medians and the ratio (RPC rows/s over
CSV rows/s) are printed. The machine is shared and noisy: compare the
ratio, not absolute figures across days."""
import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
from weft import _wire  # noqa: E402


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def query_args(sql):
    data = sql.encode()
    return b'\x0a' + varint(len(data)) + data


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, weft, trace):
        self.port = free_port()
        start = time.monotonic()
        self.proc = subprocess.Popen([weft, 'server', 'http', '--quiet', '--port',
                                      str(self.port), trace],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                self.post('/status', b'', method='GET')
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit('weft server http exited with %d' % self.proc.returncode)
                time.sleep(0.1)
        self.load_s = time.monotonic() - start

    def post(self, path, body, method='POST'):
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=3600)
        try:
            conn.request(method, path, body=body)
            resp = conn.getresponse()
            total, tail = 0, b''
            while True:
                chunk = resp.read(1 << 20)
                if not chunk:
                    break
                total += len(chunk)
                tail = (tail + chunk)[-64:]
            return resp.status, total, tail
        finally:
            conn.close()

    def query(self, sql):
        start = time.monotonic()
        status, size, tail = self.post('/query', query_args(sql))
        elapsed = time.monotonic() - start
        if status != 200:
            raise SystemExit('/query answered %d' % status)
        return elapsed, size, tail

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def count_rows(server, sql):
    """The rows of sql, from a count(*) over it (decoded with python/weft's
    wire reader)."""
    conn = http.client.HTTPConnection('127.0.0.1', server.port, timeout=3600)
    try:
        conn.request('POST', '/query', body=query_args('select count(*) from (%s)' % sql))
        body = conn.getresponse().read()
    finally:
        conn.close()
    reader = _wire.QueryResultReader()
    reader.add(body)
    if reader.error or not reader.rows:
        raise SystemExit('cannot count the rows: %s' % reader.error)
    return reader.rows[0][0]


def csv_round(weft, trace, sql):
    with tempfile.NamedTemporaryFile('r', suffix='.perf') as perf:
        with open(os.devnull, 'w') as null:
            rc = subprocess.run([weft, '--quiet', '-Q', sql, trace, '--perf-file', perf.name],
                                stdout=null, stderr=subprocess.DEVNULL).returncode
        if rc != 0:
            raise SystemExit('weft -Q exited with %d' % rc)
        load_ns, query_ns = (int(x) for x in perf.read().strip().split(','))
    return query_ns / 1e9, load_ns / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('weft')
    parser.add_argument('trace')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--sql', default='select * from slice')
    args = parser.parse_args()
    server = Server(args.weft, args.trace)
    try:
        rows = count_rows(server, args.sql)
        print('trace %s: %.1f MiB, loaded in %.1f s; %s: %d rows' % (
            args.trace, os.path.getsize(args.trace) / 2**20, server.load_s, args.sql, rows))
        rpc_s, rpc_bytes, csv_s = [], 0, []
        for k in range(args.rounds):
            elapsed, rpc_bytes, tail = server.query(args.sql)
            if b'\x30\x01' not in tail:  # is_last_batch (field 6) set
                raise SystemExit('the answer has no last batch')
            rpc_s.append(elapsed)
            query_s, load_s = csv_round(args.weft, args.trace, args.sql)
            csv_s.append(query_s)
            print('round %d: rpc %.3f s (%.0f rows/s, %.1f MiB), csv %.3f s (%.0f rows/s; '
                  'its load %.1f s)' % (k + 1, elapsed, rows / elapsed, rpc_bytes / 2**20,
                                        query_s, rows / query_s, load_s))
            sys.stdout.flush()
    finally:
        server.stop()
    rpc_med, csv_med = statistics.median(rpc_s), statistics.median(csv_s)
    print('median: rpc /query %.0f rows/s (%.3f s), csv -Q %.0f rows/s (%.3f s); '
          'rpc/csv throughput ratio %.2f' % (rows / rpc_med, rpc_med, rows / csv_med, csv_med,
                                             csv_med / rpc_med))


if __name__ == '__main__':
    main()
