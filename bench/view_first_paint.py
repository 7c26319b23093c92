#!/usr/bin/env python3
"""Times the web view's first paint after the load of a large merge.

    bench/view_first_paint.py --bin build/weft [--slices 10] [--files 2] [TRACE...]

Without TRACE, writes a merge of --files Chrome JSON files holding about
--slices million slices in all into bench/data/ (the shared kit's
generator, /work/shared/bench/gen.py json, one seed per file; about 8.4 k
slices a MiB), then starts `weft view --port 0` on it.

`weft view` makes the view's index (docs/view.md) after the load, before it
prints its URL; /view/tracks says how long the index took (index_ms). Then
this script asks what the page asks for before its first paint, in the
page's order, over HTTP: the page and its scripts, /view/tracks, the
summary of the first screen of tracks (--rows, at --px pixels: a 1400 px
window less the 220 px of labels) over the whole trace, and its flows. The
first paint after the load ending is the index's time plus that sequence
(the page's 20 ms summary timer and its drawing, a few ms, not counted).
Prints each part. The first sequence is the first paint (a track's levels
of detail are made on its first summary); the median of the --runs
sequences is what a reload of the page costs."""
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
SLICES_PER_MIB = 8400  # gen.py json: 4.2 M slices in 500 MiB


def generate(million_slices, files):
    data = os.path.join(ROOT, 'bench', 'data')
    os.makedirs(data, exist_ok=True)
    mib = million_slices * 1e6 / SLICES_PER_MIB / files
    out = []
    for seed in range(1, files + 1):
        path = os.path.join(data, 'first_paint_%gM_%d_of_%d.json' % (million_slices, seed, files))
        if not os.path.exists(path):
            subprocess.run([sys.executable, SHARED_GEN, 'json', '%.1f' % mib, path,
                            '--seed', str(seed)], check=True, stdout=subprocess.DEVNULL)
        out.append(path)
    return out


def get(port, path):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=600)
    try:
        conn.request('GET', path)
        resp = conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise SystemExit('%s: %d %s' % (path, resp.status, body[:200]))
        return body
    finally:
        conn.close()


def first_paint(port, rows, px):
    """The page's requests up to its first paint: (seconds, tracks doc)."""
    began = time.perf_counter()
    for asset in ('/', '/style.css', '/app.js', '/merge.js'):
        get(port, asset)
    tracks = json.loads(get(port, '/view/tracks'))
    start, end = tracks['start'], tracks['end']
    pad = max(1, (end - start) // 50)
    start, end = start - pad, end + pad
    screen = [t['vid'] for t in tracks['tracks'] if t['count']][:rows]
    summary = get(port, '/view/summary?start=%d&end=%d&px=%d&tracks=%s'
                  % (start, end, px, ','.join(map(str, screen))))
    get(port, '/view/flows?start=%d&end=%d' % (start, end))
    return time.perf_counter() - began, tracks, len(summary)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bin', required=True)
    ap.add_argument('trace', nargs='*')
    ap.add_argument('--slices', type=float, default=10, help='million slices generated')
    ap.add_argument('--files', type=int, default=2)
    ap.add_argument('--rows', type=int, default=40, help='tracks on the first screen')
    ap.add_argument('--px', type=int, default=1180)
    ap.add_argument('--runs', type=int, default=3)
    a = ap.parse_args()
    traces = a.trace or generate(a.slices, a.files)
    flags = []
    for t in traces[1:]:  # each JSON file its own machine, placed against the first
        name = os.path.basename(t)
        flags += ['--machine', '%s=%s' % (name, name.split('.')[0]),
                  '--sync', '%s=%s' % (name, os.path.basename(traces[0]))]
    began = time.perf_counter()
    proc = subprocess.Popen([a.bin, 'view', '--port', '0', '--idle-timeout', '600', '--quiet',
                             *flags, *traces], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = proc.stdout.readline().decode()
        ready = time.perf_counter() - began
        port = int(line.strip().rstrip('/').rsplit(':', 1)[1])
        times, tracks, size = [], None, 0
        for _ in range(a.runs):
            took, tracks, size = first_paint(port, a.rows, a.px)
            times.append(took)
        rows = sum(t['count'] for t in tracks['tracks'])
        index = tracks['index_ms'] / 1000
        page, later = times[0], statistics.median(times)
        print('traces: %s (%.1f MiB)' % (' '.join(traces),
                                          sum(os.path.getsize(t) for t in traces) / 2**20))
        print('load and index: %.2f s, of which the index of %d rows on %d tracks: %.3f s'
              % (ready, rows, len(tracks['tracks']), index))
        print('page requests to the first paint (%d tracks, %d px, %.1f KiB summary): '
              '%.1f ms (the first; median of %d: %.1f ms)'
              % (a.rows, a.px, size / 1024, page * 1000, a.runs, later * 1000))
        print('first paint after the load ending: %.3f s' % (index + page))
    finally:
        proc.terminate()
        proc.wait()


if __name__ == '__main__':
    main()
