#!/usr/bin/env python3
"""Load speed of the importers the shared kit has no generator for (strace
text, Gecko JSON, Instruments XML, a phone's proto trace with logcat,
power, GPU, memory and perf-sample data) against the Chrome JSON importer
and against Perfetto's shell, in one run.

    bench/new_formats.py [--weft BIN] [--ref BIN] [--mib 200] [--rounds 3] [--data DIR]

Writes a --mib MiB input of each kind into --data once (deterministic:
realistic line and element shapes, a few thousand threads' worth of
repeated names; the phone trace from bench/phone_trace.py), plus the kit's
Chrome JSON trace of the same size (../shared/bench/gen.py json), then
loads each with `BIN -q Q.sql` (a count of the rows of the tables the
formats fill), weft and the reference
in turns, --rounds times, and prints median MiB/s, weft's ratio to its
Chrome JSON importer and to the reference on the same file (-- where the
reference cannot load it). The targets: every ratio at least 1."""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phone_trace  # noqa: E402 (bench/phone_trace.py)

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


def write_phone(path, size):
    with open(path, 'wb') as out:
        phone_trace.generate(size, out)


KINDS = {
    'strace': ('strace%d.txt', write_strace),
    'gecko': ('gecko%d.json', write_gecko),
    'instruments': ('instruments%d.xml', write_instruments),
    'phone proto': ('phone%d.pftrace', write_phone),
}


def timed_load(binary, trace, qfile, must_load=True):
    """Wall seconds of one load; None when a reference cannot load the file
    or reads no row from it (it does not know the format)."""
    start = time.monotonic()
    proc = subprocess.run([binary, '-q', qfile, trace], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    took = time.monotonic() - start
    if proc.returncode != 0 and must_load:
        raise SystemExit('%s failed: %s' % (trace, proc.stderr.decode(errors='replace')))
    rows = proc.stdout.decode(errors='replace').split()
    if not must_load and (proc.returncode != 0 or not rows or rows[-1] == '0'):
        return None
    return took


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--weft', default=os.path.join(ROOT, 'build-release', 'weft'))
    ap.add_argument('--ref', default=os.path.join(SHARED, 'reference', 'run'),
                    help="Perfetto's trace_processor_shell; '' for none")
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
    qfile = os.path.join(args.data, 'count_rows.sql')
    with open(qfile, 'w') as f:  # rows of the tables each format fills
        f.write('select (select count(*) from slice) + (select count(*) from counter) + '
                '(select count(*) from sched) + (select count(*) from android_logs) + '
                '(select count(*) from cpu_profile_stack_sample);\n')
    times = {k: [] for k in inputs}
    ref_times = {k: [] for k in inputs}
    for r in range(args.rounds):
        for kind, path in inputs.items():
            # alternate which goes first, round by round
            runs = [(times, args.weft, True), (ref_times, args.ref, False)]
            for table, binary, must in (runs if r % 2 == 0 else runs[::-1]):
                if binary and (must or None not in table[kind]):
                    table[kind].append(timed_load(binary, path, qfile, must))
    base = os.path.getsize(json_path) / MiB / statistics.median(times['chrome json'])
    print('| input | MiB | weft MiB/s | ratio to Chrome JSON | reference MiB/s | weft / reference |')
    print('|---|---|---|---|---|---|')
    for kind, path in inputs.items():
        mib = os.path.getsize(path) / MiB
        speed = mib / statistics.median(times[kind])
        ref = ref_times[kind]
        ref_speed = mib / statistics.median(ref) if ref and None not in ref else None
        print('| %s | %.0f | %.1f | %.2f | %s | %s |' % (
            kind, mib, speed, speed / base, '%.1f' % ref_speed if ref_speed else '--',
            '%.2f' % (speed / ref_speed) if ref_speed else '--'))


if __name__ == '__main__':
    main()
