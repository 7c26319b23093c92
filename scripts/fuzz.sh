#!/usr/bin/env bash
# Runs every libFuzzer target in fuzz/ for FUZZ_SECONDS each (ASan+UBSan,
# leak detection on) and fails if any of them reports a finding.
#   scripts/fuzz.sh BUILD_DIR [CONFORMANCE_DIR]
# Env: FUZZ_SECONDS (60), FUZZ_JOBS (targets run in parallel, 1),
#      FUZZ_TARGETS (space-separated subset).
# Seeds are generated (scripts/fuzz_seeds.py) into BUILD_DIR/fuzz-seeds; the
# growing corpus lives in BUILD_DIR/fuzz-corpus/<target>, crash inputs in
# BUILD_DIR/fuzz-artifacts/, logs in BUILD_DIR/fuzz-logs/.
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [CONFORMANCE_DIR]}
conformance=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
targets=${FUZZ_TARGETS:-"fuzz_proto fuzz_json fuzz_manifest fuzz_archive fuzz_systrace fuzz_pipeline fuzz_psql fuzz_rpc fuzz_instruments"}

seed_args=()
[ -n "$conformance" ] && [ -d "$conformance" ] && seed_args=(--conformance "$conformance")
rm -rf "$build/fuzz-seeds"
python3 "$root/scripts/fuzz_seeds.py" "$build/fuzz-seeds" "${seed_args[@]}" >/dev/null
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_one() {
  local t=$1
  local corpus="$build/fuzz-corpus/$t"
  mkdir -p "$corpus"
  local dict=()
  [ -f "$root/fuzz/$t.dict" ] && dict=(-dict="$root/fuzz/$t.dict")
  "$build/fuzz/$t" "$corpus" "$build/fuzz-seeds/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
    >"$build/fuzz-logs/$t.log" 2>&1
}

failed=()
running=0
declare -A pids
for t in $targets; do
  run_one "$t" &
  pids[$t]=$!
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
for t in $targets; do
  if ! wait "${pids[$t]}"; then failed+=("$t"); fi
done

for t in $targets; do
  log="$build/fuzz-logs/$t.log"
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  execs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  rate=$(grep -E 'stat::average_exec_per_sec' "$log" | awk '{print $2}' || true)
  echo "fuzz: $t: ${execs:-?} runs, ${rate:-?} exec/s; ${last#*cov}" | sed 's/; \(.*\)/; cov\1/'
done
if [ ${#failed[@]} -gt 0 ]; then
  for t in "${failed[@]}"; do
    echo "fuzz: FINDING in $t (log $build/fuzz-logs/$t.log):"
    grep -E 'ERROR|FUZZ_CHECK|runtime error|SUMMARY|Test unit written' "$build/fuzz-logs/$t.log" | head -20
  done
  exit 1
fi
echo "fuzz: no findings in $(echo $targets | wc -w) targets x ${seconds}s"
