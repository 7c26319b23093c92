#!/usr/bin/env python3
"""Load benchmark on the shared kit's merge traces (../shared/bench).

    bench/bench_merge.py [BUILD_DIR]        (make bench runs it)

Generates (once, cached in BUILD_DIR/bench-data) `gen.py merge 300 --files F`
for F = 1, 10, 100, 1000 (with one file the generator writes a single proto
trace; with more, every third member is Chrome JSON); loads each with `weft --threads T -q Q.sql` for T = 1
and 2 (Q.sql = count(*) from slice and from sched, as the kit's run.sh);
prints MiB/s and peak RSS / input size (median of RUNS rounds, each of
which runs every case once, so that the machine's drift falls on all cases
alike; getrusage of the child), then the kit's verify.py per case, then our figures against the
kit's reference (trace_processor_shell v58.2) as ratios, and how throughput
holds up as the same bytes are split over more files (the goal: 1,000
files within 20% of 1 file).

A deflated copy of the 1,000-file archive (made once with Python's zipfile,
level 6) is loaded too: its MiB/s and RSS ratio are against the
uncompressed size, as the issue's memory bound is.

Env: BENCH_RUNS (default 3), BENCH_FILES (e.g. "10 100"), BENCH_DEFLATED
(file counts of the deflated copies, default "1000", "" for none),
BENCH_THREADS (default "1 2"), WEFT_SHARED (default ../shared next to the
repository).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

MiB = 1 << 20
QUERY = "select count(*) as n from slice;\nselect count(*) as n from sched;\n"
# The kit's README: MiB/s and peak RSS / file size of the reference. The
# 10-file MiB/s comes from its prose ("36 MiB/s at 10"); no RSS given there.
REFERENCE = {10: (36.0, None), 100: (20.1, 3.97), 1000: (5.0, 6.34)}


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_bench():
    shared = os.environ.get("WEFT_SHARED",
                            os.path.join(repo_root(), "..", "shared"))
    return os.path.join(os.path.abspath(shared), "bench")


def trace_path(data_dir, kit, files):
    """The cached merge trace with `files` members, generated if missing."""
    path = os.path.join(data_dir, "merge300_f%d.zip" % files)
    if os.path.exists(path) and os.path.exists(path + ".meta.json"):
        return path
    os.makedirs(data_dir, exist_ok=True)
    print("generating %s ..." % os.path.basename(path), flush=True)
    tmp = path + ".part"
    subprocess.run([sys.executable, os.path.join(kit, "gen.py"), "merge",
                    "300", tmp, "--files", str(files)], check=True,
                   stdout=subprocess.DEVNULL)
    os.replace(tmp + ".meta.json", path + ".meta.json")
    os.replace(tmp, path)
    return path


def deflated_path(stored):
    """A deflated copy of a stored archive, made if missing."""
    import zipfile
    path = stored.replace(".zip", "_deflate.zip")
    if os.path.exists(path):
        return path
    print("compressing %s ..." % os.path.basename(path), flush=True)
    tmp = path + ".part"
    with zipfile.ZipFile(stored) as src, \
            zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info), zipfile.ZIP_DEFLATED)
    os.replace(tmp, path)
    return path


def load_once(weft, trace, threads, query_file):
    """One load; returns (wall s, peak RSS bytes, exit status, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([weft, "--threads", str(threads), "-q",
                                 query_file, trace], stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            sys.stderr.write(err.read().decode(errors="replace")[-2000:])
        return wall, usage.ru_maxrss * 1024, proc.returncode, \
            out.read().decode(errors="replace")


def warm(trace):
    """Reads the trace, so that the run after it finds it in the page cache
    (the reference's figures are warm-cache ones). Needed before every run:
    a shared machine may reclaim the page cache within seconds, and a run
    that reads its trace from disk is much slower, its profile dominated by
    read() copies and the CRC of pages coming in."""
    with open(trace, "rb") as f:
        while f.read(1 << 24):
            pass


def measure_rounds(weft, jobs, runs, query_file):
    """Runs every (key, trace, threads) job once per round, `runs` rounds:
    interleaved, so that the machine's drift in speed (runs minutes apart
    differ by tens of percent) falls on every case alike and the ratios
    between cases hold. Returns {key: [(wall, rss, status)...]} in round order."""
    samples = {key: [] for key, _trace, _threads in jobs}
    for _ in range(runs):
        for key, trace, threads in jobs:
            warm(trace)
            wall, rss, rc, _out = load_once(weft, trace, threads, query_file)
            samples[key].append((wall, rss, rc))
    return samples


def summarize(samples, size):
    walls = [w for w, _rss, _rc in samples]
    wall = statistics.median(walls)
    return {"size": size, "wall": wall, "mibs": size / MiB / wall,
            "rss": statistics.median(r for _w, r, _rc in samples) / size,
            "status": next((rc for _w, _r, rc in samples if rc), 0),
            "min": min(walls), "max": max(walls), "walls": walls}


def verify(kit, weft, trace, meta):
    r = subprocess.run([sys.executable, os.path.join(kit, "verify.py"), weft,
                        trace, meta], capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    return r.returncode == 0, lines


def print_scaling(results, thread_counts):
    """MiB/s of each stored case as a share of the 1-file (and 10-file)
    case's, at the same thread count: what splitting into files costs."""
    bases = [b for b in ("files=1", "files=10")
             if any((b, t) in results for t in thread_counts)]
    if not bases:
        return
    print("\nthroughput against fewer files (same 300 MiB; the 1-file trace is "
          "all proto, the others a third JSON); each ratio is the median of\n"
          "the rounds' ratios (both cases ran in the same round), with their "
          "range:")
    print("%-15s %7s %9s" % ("case", "threads", "MiB/s") +
          "".join(" %20s" % ("/ " + b) for b in bases))
    for (label, t), m in results.items():
        if label.endswith("zd"):
            continue
        ratios = ""
        for b in bases:
            base = results.get((b, t))
            if not base:
                ratios += " %20s" % "-"
                continue
            # One round's ratio: this case's MiB/s over the base's.
            paired = sorted(base["walls"][i] / m["walls"][i] * m["size"] / base["size"]
                            for i in range(min(len(m["walls"]), len(base["walls"]))))
            ratios += " %20s" % ("%.2f (%.2f-%.2f)" % (
                statistics.median(paired), paired[0], paired[-1]))
        print("%-15s %7d %9.1f%s" % (label, t, m["mibs"], ratios))


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        print(__doc__.strip())
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    weft = os.path.abspath(os.path.join(build, "weft"))
    kit = shared_bench()
    if not os.path.exists(os.path.join(kit, "gen.py")):
        print("bench_merge: no benchmark kit at %s (set WEFT_SHARED)" % kit)
        return 0
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    file_counts = [int(x) for x in
                   os.environ.get("BENCH_FILES", "1 10 100 1000").split()]
    thread_counts = [int(x) for x in
                     os.environ.get("BENCH_THREADS", "1 2").split()]
    deflated_counts = [int(x) for x in
                       os.environ.get("BENCH_DEFLATED", "1000").split()]
    data_dir = os.path.join(build, "bench-data")
    # (label, trace, uncompressed size, file count for the reference or
    # None, the generator's counts)
    cases = []
    for f in sorted(set(file_counts) | set(deflated_counts)):
        stored = trace_path(data_dir, kit, f)
        if f in file_counts:
            cases.append(("files=%d" % f, stored, os.path.getsize(stored), f,
                          stored + ".meta.json"))
        if f in deflated_counts:
            cases.append(("files=%d zd" % f, deflated_path(stored),
                          os.path.getsize(stored), None, stored + ".meta.json"))

    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as q:
        q.write(QUERY)
    results = {}
    try:
        print("merge 300 MiB, median of %d rounds (each round runs every case "
              "once); MiB/s = uncompressed size / wall;\nRSS ratio = peak RSS / "
              "uncompressed size (zd: deflated zip)" % runs, flush=True)
        jobs = [((label, t), trace, t) for label, trace, _size, _ref, _meta in cases
                for t in thread_counts]
        samples = measure_rounds(weft, jobs, runs, q.name)
        print("%-15s %7s %8s %8s %9s %8s  %s" % (
            "case", "threads", "wall s", "MiB/s", "RSS/size", "RSS MiB",
            "wall min-max"))
        for label, trace, size, _ref, _meta in cases:
            for t in thread_counts:
                m = summarize(samples[(label, t)], size)
                results[(label, t)] = m
                print("%-15s %7d %8.2f %8.1f %9.2f %8.0f  %.2f-%.2f%s" % (
                    label, t, m["wall"], m["mibs"], m["rss"],
                    m["rss"] * m["size"] / MiB, m["min"], m["max"],
                    "" if m["status"] == 0 else "  EXIT %d" % m["status"]),
                    flush=True)
    finally:
        os.unlink(q.name)

    print("\nverify.py (counts against the generator, no error stats):")
    for label, trace, _size, _ref, meta in cases:
        ok, lines = verify(kit, weft, trace, meta)
        print("  %s: %s" % (label, "OK" if ok else "FAIL"))
        for line in lines:
            if not line.startswith("info stat"):
                print("    " + line)

    print("\nagainst the reference (trace_processor_shell, shared/bench/README.md);"
          "\nspeed ratio = ours / ref (higher is better), "
          "RSS ratio = ours / ref (lower is better):")
    print("%-15s %7s %9s %9s %8s %9s %9s %8s" % (
        "case", "threads", "MiB/s", "ref", "speed x", "RSS/size", "ref",
        "RSS x"))
    refs = {case[0]: case[3] for case in cases}
    for (label, t), m in results.items():
        ref_mibs, ref_rss = REFERENCE.get(refs[label], (None, None))
        print("%-15s %7d %9.1f %9s %8s %9.2f %9s %8s" % (
            label, t, m["mibs"],
            "%.1f" % ref_mibs if ref_mibs else "-",
            "%.2f" % (m["mibs"] / ref_mibs) if ref_mibs else "-",
            m["rss"], "%.2f" % ref_rss if ref_rss else "-",
            "%.2f" % (m["rss"] / ref_rss) if ref_rss else "-"))
    print_scaling(results, thread_counts)
    json_out = os.path.join(build, "bench-merge.json")
    with open(json_out, "w") as f:
        json.dump({"%s/%d" % k: v for k, v in results.items()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
