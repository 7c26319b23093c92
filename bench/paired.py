#!/usr/bin/env python3
"""Paired load benchmark: two trace processors on the same inputs, in turns.

    bench/paired.py [--rounds 3] [--mib 64] [--dir DIR] A B [CASE...]

A and B are binaries that take `-Q SQL TRACE` (weft builds, or Perfetto's
trace_processor_shell, e.g. ../shared/reference/run). Each case's input is
generated once with the project's generator (tests/e2e/gen_traces.py) into
DIR; then, for each round, A loads it and B loads it, alternating which goes
first, each timed by wall clock with its peak RSS. The report gives per case
the median wall time and RSS of each and the ratio B/A of the medians: on a
shared machine absolute figures move from run to run, the ratio taken in
one run is the figure to quote.

Cases: proto, json, systrace, merge (a ZIP of several files with a
manifest); all of them by default.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, "tests", "e2e", "gen_traces.py")
CASES = {
    "proto": ("proto", ".pftrace", []),
    "json": ("json", ".json", []),
    "systrace": ("systrace", ".txt", []),
    "merge": ("merge", ".zip", ["--files", "50"]),
}
QUERY = "select count(*) from slice"


def generate(case, mib, directory):
    kind, ext, extra = CASES[case]
    path = os.path.join(directory, "%s_%d%s" % (case, mib, ext))
    if not os.path.exists(path):
        subprocess.run([sys.executable, GEN, kind, str(mib), path] + extra,
                       check=True, stdout=subprocess.DEVNULL)
    return path


def timed_load(binary, trace):
    """(wall seconds, peak RSS in MiB) of one load and query."""
    start = time.monotonic()
    proc = subprocess.Popen([binary, "-Q", QUERY, trace],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s failed on %s: %s" % (binary, trace, err.strip()))
    return wall, usage.ru_maxrss / 1024.0


def run_case(a, b, trace, rounds):
    times = {a: [], b: []}
    rss = {a: [], b: []}
    for r in range(rounds):
        for binary in ((a, b) if r % 2 == 0 else (b, a)):
            wall, peak = timed_load(binary, trace)
            times[binary].append(wall)
            rss[binary].append(peak)
    return ({k: statistics.median(v) for k, v in times.items()},
            {k: statistics.median(v) for k, v in rss.items()})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("cases", nargs="*", default=list(CASES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--dir", default=os.path.join(ROOT, "build-bench-inputs"))
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    print("A = %s\nB = %s\n%d rounds, %d MiB inputs, medians\n" % (
        args.a, args.b, args.rounds, args.mib))
    print("| case | A s | B s | B/A time | A RSS MiB | B RSS MiB |")
    print("|---|---|---|---|---|---|")
    for case in args.cases:
        if case not in CASES:
            raise SystemExit("unknown case %s (one of %s)" % (case, ", ".join(CASES)))
        trace = generate(case, args.mib, args.dir)
        t, m = run_case(args.a, args.b, trace, args.rounds)
        print("| %s | %.2f | %.2f | %.3f | %.0f | %.0f |" % (
            case, t[args.a], t[args.b], t[args.b] / t[args.a], m[args.a], m[args.b]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
