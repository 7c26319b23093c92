#!/usr/bin/env python3
"""weft against Perfetto's trace_processor_shell, paired in one run.

    bench/vs_reference.py [--weft BIN] [--ref BIN] [--rounds 3] [--data DIR]
                          [--only load|query] [--inputs proto,json,...]
                          [--queries NAME_PART ...]

The machine is shared and its speed drifts by 1.5-3x between days, so only
a ratio measured in one run means anything: every case runs weft and the
reference alternately, --rounds times, and the table gives the medians and
the ratio.

Load: the shared kit's five inputs (../shared/bench/gen.py: proto 500 MiB,
Chrome JSON 500 MiB, systrace 200 MiB, merges of 300 MiB in 100 and 1,000
files), generated once into --data. Each load is `BIN -q Q.sql FILE` with
Q.sql the kit's count(*) of slice (and sched); the time is the process's
wall time, the memory its peak RSS (wait4), and the ratio is weft's MiB/s
over the reference's.

Queries: both binaries serve the loaded proto 500 MiB trace (and the JSON
one, for args) over the TraceProcessor RPC (`weft server http`, the
reference's `-D --http-port`); each query is POSTed to /query and timed to
the answer's last byte, alternating weft and the reference, the median of
--repeat runs per round. The ratio is weft's time over the reference's
(below 1: weft is faster)."""
import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
SHARED = os.environ.get('WEFT_SHARED', os.path.join(ROOT, '..', 'shared'))
MiB = 1 << 20

INPUTS = {
    'proto': (['proto', '500'], 'proto500.pftrace'),
    'json': (['json', '500'], 'json500.json'),
    'systrace': (['systrace', '200'], 'systrace200.txt'),
    'merge100': (['merge', '300', '--files', '100'], 'merge_f100.zip'),
    'merge1000': (['merge', '300', '--files', '1000'], 'merge_f1000.zip'),
}

# (name, trace, sql). {lo}/{hi} are a 1% ts window in the middle of the
# proto trace's slices.
QUERIES = [
    ('1% ts window count', 'proto',
     'select count(*) from slice where ts >= {lo} and ts < {hi}'),
    ('top 10 slice names', 'proto',
     'select name, count(*) as n from slice group by name order by n desc limit 10'),
    ('sched time per thread', 'proto',
     'select utid, sum(dur) as t from sched group by utid order by t desc'),
    ('slices per thread (join)', 'proto',
     'select thread.name, count(*) as n from slice join thread_track '
     'on slice.track_id = thread_track.id join thread using (utid) '
     'group by thread.name order by n desc'),
    ('longest slice per track (window)', 'proto',
     'select count(*) from (select id, row_number() over '
     '(partition by track_id order by dur desc) as r from slice) where r = 1'),
    ('gap to previous slice (lag)', 'proto',
     'select max(ts - prev) from (select ts, lag(ts) over '
     '(partition by track_id order by ts) as prev from slice)'),
    ('args by key', 'json',
     'select key, count(*) as n from args group by key order by n desc'),
    ('EXTRACT_ARG filter', 'json',
     "select count(*) from slice where extract_arg(arg_set_id, 'args.count') > 500"),
    ('args join', 'json',
     "select count(*) from slice join args using (arg_set_id) "
     "where args.key = 'args.label' and args.string_value like 'l1%'"),
    ('ancestors of deep slices', 'proto',
     'select count(*) from slice s join ancestor_slice(s.id) a '
     'where s.depth >= 3 and s.id % 97 = 0'),
]


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def ensure_input(data, key):
    gen_args, name = INPUTS[key]
    path = os.path.join(data, name)
    if not os.path.exists(path):
        print('generating %s ...' % name, flush=True)
        subprocess.run([sys.executable, os.path.join(SHARED, 'bench', 'gen.py')] +
                       gen_args[:2] + [path] + gen_args[2:], check=True,
                       stdout=subprocess.DEVNULL)
    return path


def timed_load(binary, trace, qfile):
    """Wall seconds and peak RSS bytes of one `BIN -q Q.sql FILE`."""
    start = time.monotonic()
    proc = subprocess.Popen([binary, '-q', qfile, trace], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit('%s failed on %s (exit %d)' % (binary, trace, proc.returncode))
    return elapsed, usage.ru_maxrss * 1024


def run_loads(args, weft, ref):
    rows = []
    qdir = os.path.join(args.data, 'queries')
    os.makedirs(qdir, exist_ok=True)
    for key in args.inputs:
        trace = ensure_input(args.data, key)
        qfile = os.path.join(qdir, key + '.sql')
        with open(qfile, 'w') as f:
            f.write('select count(*) as n from slice;\n')
            if key != 'json':
                f.write('select count(*) as n from sched;\n')
        size = os.path.getsize(trace)
        w, r = [], []
        for k in range(args.rounds):
            w.append(timed_load(weft, trace, qfile))
            r.append(timed_load(ref, trace, qfile))
            print('  %s round %d: weft %.1f s, reference %.1f s' % (key, k + 1, w[-1][0],
                                                                   r[-1][0]), flush=True)
        wt = statistics.median(x[0] for x in w)
        rt = statistics.median(x[0] for x in r)
        rows.append((key, size / MiB / wt, size / MiB / rt, rt / wt,
                     statistics.median(x[1] for x in w) / size,
                     statistics.median(x[1] for x in r) / size))
    print('\n| input | weft MiB/s | reference MiB/s | ratio | weft RSS / size '
          '| reference RSS / size |')
    print('|---|---|---|---|---|---|')
    for key, wm, rm, ratio, wrss, rrss in rows:
        print('| %s | %.1f | %.1f | %.2fx | %.2f | %.2f |' % (key, wm, rm, ratio, wrss, rrss))


class Server:
    """A binary serving one trace over the TraceProcessor RPC."""

    def __init__(self, argv, port):
        self.port = port
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        while True:
            try:
                conn = http.client.HTTPConnection('127.0.0.1', port, timeout=5)
                conn.request('GET', '/status')
                conn.getresponse().read()
                conn.close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit('%s exited with %d' % (argv[0], self.proc.returncode))
                time.sleep(0.2)

    def query(self, sql):
        """Seconds to the answer's last byte, and the answer's bytes."""
        data = sql.encode()
        body = b'\x0a' + varint(len(data)) + data
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=3600)
        start = time.monotonic()
        conn.request('POST', '/query', body=body)
        resp = conn.getresponse()
        answer = resp.read()
        elapsed = time.monotonic() - start
        conn.close()
        if resp.status != 200:
            raise SystemExit('/query answered %d' % resp.status)
        return elapsed, answer

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def first_int(answer):
    """The first integer cell of a QueryResult (weft's python reader)."""
    sys.path.insert(0, os.path.join(ROOT, 'python'))
    from weft import _wire
    reader = _wire.QueryResultReader()
    reader.add(answer)
    if reader.error or not reader.rows:
        raise SystemExit('query failed: %s' % reader.error)
    return reader.rows[0]


def serve_pair(weft, ref, trace):
    wp, rp = free_port(), free_port()
    ws = Server([weft, 'server', 'http', '--quiet', '--port', str(wp), trace], wp)
    try:
        rs = Server([ref, '-D', '--http-port', str(rp), trace], rp)
    except BaseException:
        ws.stop()
        raise
    return ws, rs


def median_query(server, sql, repeat):
    server.query(sql)  # warm: lazy tables, page cache
    return statistics.median(server.query(sql)[0] for _ in range(repeat))


def run_queries(args, weft, ref):
    traces = sorted({'proto'} | {q[1] for q in QUERIES
                                 if not args.queries or any(k in q[0] for k in args.queries)})
    servers = {}
    try:
        for key in traces:
            servers[key] = serve_pair(weft, ref, ensure_input(args.data, key))
        ws = servers['proto'][0]
        lo_ts, hi_ts = first_int(ws.query('select min(ts), max(ts) from slice')[1])
        mid = (lo_ts + hi_ts) // 2
        width = (hi_ts - lo_ts) // 100
        window = {'lo': mid - width // 2, 'hi': mid + width // 2}
        results = []
        for name, key, sql in QUERIES:
            if args.queries and not any(q in name for q in args.queries):
                continue
            sql = sql.format(**window)
            wsrv, rsrv = servers[key]
            w, r = [], []
            for _ in range(args.rounds):
                w.append(median_query(wsrv, sql, args.repeat))
                r.append(median_query(rsrv, sql, args.repeat))
            results.append((name, statistics.median(w), statistics.median(r)))
            print('  %s: weft %.2f ms, reference %.2f ms' % (name, results[-1][1] * 1e3,
                                                            results[-1][2] * 1e3), flush=True)
    finally:
        for pair in servers.values():
            for s in pair:
                s.stop()
    print('\n| query | weft ms | reference ms | weft / reference |')
    print('|---|---|---|---|')
    for name, wt, rt in results:
        print('| %s | %.2f | %.2f | %.2f |' % (name, wt * 1e3, rt * 1e3, wt / rt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--weft', default=os.path.join(ROOT, 'build-release', 'weft'))
    ap.add_argument('--ref', default=os.path.join(SHARED, 'reference', 'run'))
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--repeat', type=int, default=3, help='runs of a query per round')
    ap.add_argument('--data', default=os.path.join(ROOT, 'bench', 'data'))
    ap.add_argument('--only', choices=['load', 'query'])
    ap.add_argument('--inputs', default=','.join(INPUTS))
    ap.add_argument('--queries', action='append', default=[],
                    help='run only the queries whose name contains this (repeatable)')
    args = ap.parse_args()
    args.inputs = [k for k in args.inputs.split(',') if k]
    for k in args.inputs:
        if k not in INPUTS:
            raise SystemExit('unknown input %s (one of %s)' % (k, ', '.join(INPUTS)))
    if not os.access(args.ref, os.X_OK):
        raise SystemExit('no reference binary at %s (see ../shared/reference/README.md)'
                         % args.ref)
    os.makedirs(args.data, exist_ok=True)
    weft = os.path.abspath(args.weft)
    if args.only != 'query':
        run_loads(args, weft, args.ref)
    if args.only != 'load':
        run_queries(args, weft, args.ref)


if __name__ == '__main__':
    main()
