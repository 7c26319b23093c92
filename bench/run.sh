#!/usr/bin/env bash
# Runs weft's micro-benchmarks from a build directory (default: build).
set -euo pipefail
build=${1:-build}
for b in "$build"/bench/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b"
done
