#!/usr/bin/env bash
# The conformance ratchet: runs the shared conformance corpus with the given
# weft binary and fails if fewer tests pass than tests/conformance_baseline.txt
# records. Prints the new count; when it rose, says so (commit the new
# baseline with --update).
set -euo pipefail
bin=$1
corpus=${2:-../shared/conformance}
update=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
baseline_file=$here/tests/conformance_baseline.txt
if [ ! -f "$corpus/run_corpus.py" ]; then
  echo "conformance: skipped: no corpus at $corpus (the shared conformance corpus lives outside this repository)"
  exit 0
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
report=$(mktemp)
python3 "$corpus/run_corpus.py" --bin "$bin" "$corpus" --jobs "$(nproc)" > "$report" || true
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$report" | tail -1)
rm -f "$report"
passed=${summary%% passed*}
baseline=$(cat "$baseline_file" 2>/dev/null || echo 0)
echo "conformance: $summary (baseline $baseline)"
if [ "$passed" -lt "$baseline" ]; then
  echo "conformance: FAILED — pass count fell from $baseline to $passed"
  exit 1
fi
if [ "$update" = "--update" ]; then
  echo "$passed" > "$baseline_file"
  echo "conformance: baseline set to $passed"
elif [ "$passed" -gt "$baseline" ]; then
  echo "conformance: pass count rose; record it with: $0 $1 $corpus --update"
fi
