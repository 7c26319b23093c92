#!/usr/bin/env python3
"""Load speed of the importers the shared kit has no generator for (strace
text, Gecko JSON, Instruments XML) against the Chrome JSON importer, in
one run.

    bench/new_formats.py [--weft BIN] [--mib 200] [--rounds 3] [--data DIR]

Writes a --mib MiB input of each kind into --data once (deterministic:
realistic line and element shapes, a few thousand threads' worth of
repeated names), plus the kit's Chrome JSON trace of the same size
(../shared/bench/gen.py json), then loads each with `weft -q Q.sql` in
turns, --rounds times, and prints median MiB/s and its ratio to the
Chrome JSON importer's. The target: every ratio at least 1."""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
SHARED = os.environ.get('WEFT_SHARED', os.path.join(ROOT, '..', 'shared'))
MiB = 1 << 20
CALLS = ['openat(AT_FDCWD, "/usr/lib/libc.so.6", O_RDONLY|O_CLOEXEC) = 3',
         'read(3, "\\177ELF\\2\\1\\1\\3\\0\\0\\0\\0\\0\\0\\0\\0"..., 832) = 832',
         'mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f1',
         'close(3) = 0', 'futex(0x7f2, FUTEX_WAKE_PRIVATE, 1) = 1',
         'write(1, "hello\\n", 6) = 6']


def write_strace(path, size, seed=1):
    rng = random.Random(seed)
    t = 1700000000.0
    with open(path, 'w') as f:
        written = 0
        while written < size:
            lines = []
            for _ in range(1000):
                t += rng.random() / 1000
                pid = 1000 + rng.randrange(64)
                call = rng.choice(CALLS)
                if rng.random() < 0.05:
                    name = call.split('(')[0]
                    lines.append('%d %.6f %s <unfinished ...>' % (pid, t, call.rsplit(' =', 1)[0]))
                    t += rng.random() / 1000
                    lines.append('%d %.6f <... %s resumed>) = 0' % (pid, t, name))
                else:
                    lines.append('%d %.6f %s' % (pid, t, call))
            chunk = '\n'.join(lines) + '\n'
            f.write(chunk)
            written += len(chunk)


def write_gecko(path, size, seed=2):
    rng = random.Random(seed)
    names = ['Paint', 'Reflow', 'Styles', 'DOMEvent', 'GCMajor', 'CC', 'Composite']
    threads, total, tid = [], 0, 1
    while total < size:
        n = 20000
        start = [rng.random() * 1e6 for _ in range(n)]
        cols = {'name': [rng.randrange(len(names)) for _ in range(n)],
                'startTime': start, 'endTime': [s + rng.random() * 50 for s in start],
                'phase': [1] * n, 'category': [0] * n, 'data': [None] * n, 'length': n}
        thread = {'name': 'T%d' % tid, 'tid': tid, 'pid': 1 + tid // 8,
                  'stringArray': names, 'frameTable': {'func': []}, 'funcTable': {'name': []},
                  'stackTable': {'prefix': [], 'frame': []},
                  'samples': {'stack': [], 'time': []}, 'markers': cols}
        total += len(json.dumps(thread))
        threads.append(thread)
        tid += 1
    with open(path, 'w') as f:
        json.dump({'meta': {'categories': [{'name': 'Other', 'color': 'grey'}]},
                   'threads': threads}, f)


def write_instruments(path, size, seed=3):
    rng = random.Random(seed)
    with open(path, 'w') as f:
        f.write('<?xml version="1.0"?>\n<trace-query-result>\n<node>'
                '<schema name="time-profile"/>\n')
        next_id, t, written = 1, 0, 0
        stacks = []
        threads = []
        while written < size:
            t += rng.randrange(1000, 1000000)
            row = ['<row><sample-time id="%d">%d</sample-time>' % (next_id, t)]
            next_id += 1
            if len(threads) < 64:
                row.append('<thread id="%d" fmt="T%d"><tid id="%d">%d</tid><process id="%d" '
                           'fmt="P"><pid id="%d">%d</pid></process></thread>' % (
                               next_id, len(threads), next_id + 1, 100 + len(threads),
                               next_id + 2, next_id + 3, 10))
                threads.append(next_id)
                next_id += 4
            else:
                row.append('<thread ref="%d"/>' % rng.choice(threads))
            if stacks and rng.random() < 0.7:
                row.append('<backtrace ref="%d"/>' % rng.choice(stacks))
            else:
                frames = ''.join('<frame id="%d" name="f%d" addr="0x%x"/>' % (
                    next_id + k, rng.randrange(500), 0x100000000 + rng.randrange(1 << 20))
                    for k in range(1, 9))
                row.append('<backtrace id="%d">%s</backtrace>' % (next_id, frames))
                stacks.append(next_id)
                next_id += 9
            line = ''.join(row) + '</row>\n'
            f.write(line)
            written += len(line)
        f.write('</node></trace-query-result>\n')


KINDS = {
    'strace': ('strace%d.txt', write_strace),
    'gecko': ('gecko%d.json', write_gecko),
    'instruments': ('instruments%d.xml', write_instruments),
}


def timed_load(weft, trace, qfile):
    start = time.monotonic()
    proc = subprocess.run([weft, '-q', qfile, trace], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit('%s failed: %s' % (trace, proc.stderr.decode(errors='replace')))
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--weft', default=os.path.join(ROOT, 'build-release', 'weft'))
    ap.add_argument('--mib', type=int, default=200)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--data', default=os.path.join(ROOT, 'bench', 'data'))
    args = ap.parse_args()
    os.makedirs(args.data, exist_ok=True)
    inputs = {}
    json_path = os.path.join(args.data, 'json%d.json' % args.mib)
    if not os.path.exists(json_path):
        subprocess.run([sys.executable, os.path.join(SHARED, 'bench', 'gen.py'), 'json',
                        str(args.mib), json_path], check=True, stdout=subprocess.DEVNULL)
    inputs['chrome json'] = json_path
    for kind, (name, write) in KINDS.items():
        path = os.path.join(args.data, name % args.mib)
        if not os.path.exists(path):
            write(path, args.mib * MiB)
        inputs[kind] = path
    qfile = os.path.join(args.data, 'count_slices.sql')
    with open(qfile, 'w') as f:
        f.write('select count(*) from slice;\n')
    times = {k: [] for k in inputs}
    for _ in range(args.rounds):
        for kind, path in inputs.items():
            times[kind].append(timed_load(args.weft, path, qfile))
    base = os.path.getsize(json_path) / MiB / statistics.median(times['chrome json'])
    print('| input | MiB | weft MiB/s | ratio to Chrome JSON |')
    print('|---|---|---|---|')
    for kind, path in inputs.items():
        mib = os.path.getsize(path) / MiB
        speed = mib / statistics.median(times[kind])
        print('| %s | %.0f | %.1f | %.2f |' % (kind, mib, speed, speed / base))


if __name__ == '__main__':
    main()
