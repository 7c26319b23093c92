#!/usr/bin/env bash
# Runs a small subset under valgrind memcheck (a second opinion next to the
# ASan build: uninitialised reads, leaks in an uninstrumented build).
#   scripts/valgrind.sh BUILD_DIR
# Fails on any memcheck error or definite/indirect leak.
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
vg=(valgrind -q --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
count=0

check() { # name, expected exit statuses (e.g. "0 1"), command...
  local name=$1 ok=$2
  shift 2
  count=$((count + 1))
  set +e
  "${vg[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  set -e
  if [[ " $ok " != *" $rc "* ]]; then
    echo "valgrind: FAIL $name (exit $rc)"
    tail -30 "$tmp/err"
    failed=$((failed + 1))
  fi
}

# Unit tests run from tests/, as under ctest (their data paths are relative).
cd "$root/tests"
for t in test_base test_json_tokenizer test_proto_wire test_proto_packets test_manifest; do
  [ -x "$build/tests/$t" ] || { echo "valgrind: missing $build/tests/$t"; exit 1; }
  check "unit $t" 0 "$build/tests/$t"
done

q='select count(*), sum(dur) from slice; select * from stats where value != 0'
check "cli examples/phone.json" 0 "$build/weft" -Q "$q" "$root/examples/phone.json"
python3 "$root/tests/hostile/gen.py" "$tmp/hostile" >/dev/null
for f in nul.json varint11.pb varint11b.pb pastend.pb pastend2.pb trunc.zip trunc.tar \
         trunc.json.gz names.zip names.tar mcycle.zip mtypes2.zip deep.json deep_flag.json \
         size8g.tar size256.tar deep.zip empty.pb; do
  check "cli hostile $f" "0 1" "$build/weft" --max-json-depth 64 -Q "$q" "$tmp/hostile/$f"
done
if [ "$failed" -ne 0 ]; then
  echo "valgrind: $((count - failed)) passed, $failed failed"
  exit 1
fi
echo "valgrind: $count passed, 0 failed"
