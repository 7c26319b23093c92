#!/usr/bin/env python3
"""Where one load's time goes, thread by thread (Linux perf, cpu-clock).

    bench/perf_threads.py WEFT TRACE [--threads N] [--freq HZ] [--top K]

Records one load of TRACE (`weft --threads N -q Q`, Q = the count query of
bench_merge.py) with `perf record -F HZ` and prints:
- the wall time from the first to the last sample, split at the parse's
  start (the loading thread's first sample in a parse function);
- each thread's busy seconds (samples / HZ), before and after that point;
- the loading thread's top symbols before the parse and during it.

The parsing thread is the one with the most samples. Busy time is sampled
CPU time: a thread that waits takes no samples. perf slows the load it
records, so compare shares, not seconds, across runs.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

QUERY = "select count(*) as n from slice;\nselect count(*) as n from sched;\n"
# Functions only the parse runs (prefixes; LTO adds suffixes).
PARSE_SYMBOLS = ("proto_import_parse", "proto_ftrace_parse", "json_read_event",
                 "json_apply", "json_parse", "sched_switch", "loader_emit",
                 "proto_ref_resolve", "systrace_parse", "gecko_parse", "gecko_apply",
                 "ins_parse")


def record(weft, trace, threads, freq, workdir):
    query = os.path.join(workdir, "q.sql")
    with open(query, "w") as f:
        f.write(QUERY)
    data = os.path.join(workdir, "perf.data")
    subprocess.run(["perf", "record", "-F", str(freq), "-o", data, "--", weft,
                    "--threads", str(threads), "--quiet", "-q", query, trace],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["perf", "script", "-i", data, "-F", "tid,time,ip,sym,dso"],
                         check=True, capture_output=True, text=True).stdout
    samples = []
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+)\s+([\d.]+):\s+\S+\s+(\S+).*?\((\S+)\)\s*$", line)
        if m:
            sym = m.group(3)
            if sym == "[unknown]":  # no symbol: name the library instead
                sym = "[%s]" % os.path.basename(m.group(4))
            samples.append((int(m.group(1)), float(m.group(2)), sym))
    return samples


def top(symbols, k):
    counts = collections.Counter(symbols)
    n = max(len(symbols), 1)
    return ["  %5.1f%%  %s" % (100.0 * c / n, s) for s, c in counts.most_common(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("weft")
    ap.add_argument("trace")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--freq", type=int, default=4000)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        samples = record(a.weft, a.trace, a.threads, a.freq, workdir)
    if not samples:
        sys.exit("perf_threads: no samples (is perf allowed here?)")
    t0 = min(s[1] for s in samples)
    t1 = max(s[1] for s in samples)
    per_thread = collections.Counter(s[0] for s in samples)
    main_tid = per_thread.most_common(1)[0][0]
    parse_times = [s[1] for s in samples if s[0] == main_tid and s[2].startswith(PARSE_SYMBOLS)]
    start = min(parse_times) if parse_times else t1
    print("wall %.2f s: before the parse %.2f s, parse %.2f s" % (t1 - t0, start - t0, t1 - start))
    for tid, n in per_thread.most_common():
        before = sum(1 for s in samples if s[0] == tid and s[1] < start)
        print("  thread %d%s: busy %.2f s (%.2f before the parse, %.2f during it)" %
              (tid, " (loading/parsing)" if tid == main_tid else "", n / a.freq,
               before / a.freq, (n - before) / a.freq))
    main_samples = [s for s in samples if s[0] == main_tid]
    print("loading thread before the parse:")
    print("\n".join(top([s[2] for s in main_samples if s[1] < start], a.top)))
    print("loading thread during the parse:")
    print("\n".join(top([s[2] for s in main_samples if s[1] >= start], a.top)))


if __name__ == "__main__":
    main()
