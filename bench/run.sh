#!/usr/bin/env bash
# Runs weft's micro-benchmarks from a build directory (default: build), then
# the load benchmark on the shared kit's merge traces (bench_merge.py; set
# BENCH_SKIP_MERGE=1 to skip it).
set -euo pipefail
build=${1:-build}
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
if [ -z "${BENCH_SKIP_MERGE:-}" ]; then
  echo "== bench_merge"
  python3 "$(dirname "$0")/bench_merge.py" "$build"
fi
