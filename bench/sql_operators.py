#!/usr/bin/env python3
"""Paired benchmark of the SQL operator tables: two trace processors on one
trace, in turns.

    bench/sql_operators.py [--rounds 3] [--slices 10000] A B TRACE [CASE...]

A and B are binaries that take `-Q SQL TRACE` (a weft build, Perfetto's
trace_processor_shell, e.g. ../shared/reference/run). Each round runs, for
A then B (B then A on odd rounds), the trace's load alone (`select 1`) and
each case's query; a case's time is its wall time minus the load's of the
same round, so the figure is the query's own. The report gives per case
the median query time of each, the ratio B/A of the medians, and whether
the two answered the same (each case's query ends in an aggregate).

Cases:
  ancestor    ancestor_slice(id) for --slices slices spread over the table
  descendant  descendant_slice(id) for the same slices
  span_join   SPAN_JOIN of sched with thread_state, partitioned by utid
"""
import argparse
import statistics
import subprocess
import time

SPREAD = ("(select id from slice where id %% max(1, (select count(*) from slice) / %d) = 0 "
          "limit %d)")
CASES = {
    "ancestor": "select count(*), sum(a.dur) from %s s join ancestor_slice(s.id) a",
    "descendant": "select count(*), sum(d.dur) from %s s join descendant_slice(s.id) d",
    "span_join": ("create view bench_sched as select ts, dur, utid, cpu from sched "
                  "where utid != 0; "
                  "create view bench_state as select ts, dur, utid, state from thread_state; "
                  "create virtual table bench_join using span_join("
                  "bench_sched partitioned utid, bench_state partitioned utid); "
                  "select count(*), sum(dur) from bench_join"),
}


def case_sql(case, slices):
    sql = CASES[case]
    return sql % (SPREAD % (slices, slices)) if "%s" in sql else sql


def timed_query(binary, sql, trace):
    """(wall seconds, the answer's last line) of one load and query."""
    start = time.monotonic()
    proc = subprocess.run([binary, "-Q", sql, trace], capture_output=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit("%s failed: %s" % (binary, proc.stderr.decode(errors="replace")))
    lines = [ln for ln in proc.stdout.decode(errors="replace").splitlines() if ln.strip()]
    return wall, lines[-1] if lines else ""


def run(a, b, trace, cases, slices, rounds):
    """Per case and binary: the query times of every round, and the answers."""
    times = {c: {a: [], b: []} for c in cases}
    answers = {c: {} for c in cases}
    for r in range(rounds):
        for binary in ((a, b) if r % 2 == 0 else (b, a)):
            load, _ = timed_query(binary, "select 1", trace)
            for case in cases:
                wall, answer = timed_query(binary, case_sql(case, slices), trace)
                times[case][binary].append(max(0.0, wall - load))
                answers[case][binary] = answer
    return times, answers


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("trace")
    ap.add_argument("cases", nargs="*", default=list(CASES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--slices", type=int, default=10000)
    args = ap.parse_args()
    for case in args.cases:
        if case not in CASES:
            raise SystemExit("unknown case %s (one of %s)" % (case, ", ".join(CASES)))
    times, answers = run(args.a, args.b, args.trace, args.cases, args.slices, args.rounds)
    print("A = %s\nB = %s\ntrace %s, %d rounds, medians of query time (load "
          "subtracted)\n" % (args.a, args.b, args.trace, args.rounds))
    print("| case | A s | B s | B/A | same answer |")
    print("|---|---|---|---|---|")
    for case in args.cases:
        ta = statistics.median(times[case][args.a])
        tb = statistics.median(times[case][args.b])
        same = answers[case][args.a] == answers[case][args.b]
        print("| %s | %.3f | %.3f | %s | %s |" % (
            case, ta, tb, "%.2f" % (tb / ta) if ta > 0 else "-",
            "yes" if same else "no: %s vs %s" % (answers[case][args.a],
                                                 answers[case][args.b])))


if __name__ == "__main__":
    main()
