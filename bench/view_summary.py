#!/usr/bin/env python3
"""Times the web view's viewport summary (docs/view.md) on a large merge.

    bench/view_summary.py --bin build/weft TRACE [--px 1600] [--runs 5]
    bench/view_summary.py --bin build/weft --gen MIB --files N

With --gen, the shared kit's generator (/work/shared/bench/gen.py, else
tests/e2e/gen_traces.py) writes a merge of N files into bench/data/ first.
Starts `weft view --port 0` on the trace and prints: the load, the first
/view/tracks (which copies the trace into the view's index), and the median
of --runs full-width summaries (every track, --px pixels) at the widest zoom
and at a 1 ms window where most of the screen's tracks have data, as round
trips over HTTP to the reply's first byte (the server makes the whole reply
before sending it: its time to compute) and to its last (with the transfer;
the JSON's decoding by the client not counted): once for every track, and
once for the first --view tracks (what a page of that many rows asks for).
--exact times each summary also without the levels of detail (every slice
read), for comparison."""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
SHARED_GEN = '/work/shared/bench/gen.py'


def generate(mib, files):
    data = os.path.join(ROOT, 'bench', 'data')
    os.makedirs(data, exist_ok=True)
    out = os.path.join(data, 'view_merge_%g_f%d.zip' % (mib, files))
    if not os.path.exists(out):
        gen = SHARED_GEN if os.path.exists(SHARED_GEN) else \
            os.path.join(ROOT, 'tests', 'e2e', 'gen_traces.py')
        subprocess.run([sys.executable, gen, 'merge', str(mib), out, '--files', str(files)],
                       check=True, stdout=subprocess.DEVNULL)
    return out


def get(port, path):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=600)
    try:
        start = time.perf_counter()
        conn.request('GET', path)
        resp = conn.getresponse()
        first = time.perf_counter() - start  # the reply is made before it is sent
        body = resp.read()
        took = time.perf_counter() - start  # to the last byte, before decoding
        doc = json.loads(body)
        if resp.status != 200:
            raise SystemExit('%s: %d %s' % (path, resp.status, doc.get('error')))
        return doc, (first, took), len(body)
    finally:
        conn.close()


def timed_summary(port, start, end, px, runs, tracks, exact=False):
    firsts, times, size, doc = [], [], 0, None
    which = '&tracks=' + ','.join(map(str, tracks)) if tracks is not None else ''
    which += '&exact=1' if exact else ''
    for _ in range(runs):
        doc, (first, took), size = get(port, '/view/summary?start=%d&end=%d&px=%d%s'
                                       % (start, end, px, which))
        firsts.append(first)
        times.append(took)
    buckets = sum(len(t.get('runs', t.get('buckets', []))) for t in doc['tracks'])
    return statistics.median(firsts), statistics.median(times), size, buckets


def busiest_time(port, start, end, px, tracks):
    """The time of the pixel, at the widest zoom, where most of `tracks`
    have something: the 1 ms window is centred there, so that it holds
    runs rather than the empty middle of a merge of files far apart."""
    doc, _, _ = get(port, '/view/summary?start=%d&end=%d&px=%d&tracks=%s'
                    % (start, end, px, ','.join(map(str, tracks))))
    hits = [0] * px
    for t in doc['tracks']:
        covered = set()
        for run in t.get('runs', []):
            covered.update(range(run[0], run[1] + 1))
        covered.update(b[0] for b in t.get('buckets', []))
        for x in covered:
            hits[x] += 1
    best = max(range(px), key=lambda x: hits[x])
    return start + int((best + 0.5) * (end - start) / px)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bin', required=True)
    ap.add_argument('trace', nargs='?')
    ap.add_argument('--gen', type=float, help='MiB of a generated merge')
    ap.add_argument('--files', type=int, default=1000)
    ap.add_argument('--px', type=int, default=1600)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--view', type=int, default=60, help='tracks on one screen')
    ap.add_argument('--exact', action='store_true',
                    help='also time the summary without the levels of detail')
    a = ap.parse_args()
    trace = a.trace or generate(a.gen, a.files)
    began = time.perf_counter()
    proc = subprocess.Popen([a.bin, 'view', '--port', '0', '--idle-timeout', '600', '--quiet',
                             trace], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = proc.stdout.readline().decode()
        load = time.perf_counter() - began
        port = int(line.strip().rstrip('/').rsplit(':', 1)[1])
        tracks, (_, first), _ = get(port, '/view/tracks')
        total = sum(t['count'] for t in tracks['tracks'])
        print('trace: %s (%.1f MiB)' % (trace, os.path.getsize(trace) / 2**20))
        print('load: %.2f s (the index of %d rows on %d tracks: %.3f s of it); '
              'first /view/tracks: %.3f s'
              % (load, total, len(tracks['tracks']), tracks['index_ms'] / 1000, first))
        s, e = tracks['start'], tracks['end']
        screen = [t['vid'] for t in tracks['tracks'] if t['count']][:a.view]
        mid = busiest_time(port, s, e, a.px, screen) - 500_000
        for label, lo, hi in (('widest', s, e), ('1 ms', mid, mid + 1_000_000)):
            for which, vids in (('all tracks', None), ('%d tracks' % len(screen), screen)):
                for exact in (False, True) if a.exact else (False,):
                    first, took, size, buckets = timed_summary(port, lo, hi, a.px, a.runs,
                                                               vids, exact)
                    print('summary %-6s %d px, %-10s%s: first byte %7.1f ms, last %7.1f ms '
                          '(medians of %d), %d runs/buckets, %.1f KiB'
                          % (label, a.px, which, ' exact' if exact else '', first * 1000,
                             took * 1000, a.runs, buckets, size / 1024))
    finally:
        proc.terminate()
        proc.wait()


if __name__ == '__main__':
    main()
