#!/usr/bin/env bash
# Builds the release weft with link-time and profile-guided optimization
# (gcc):
#   scripts/pgo_build.sh [BUILD_DIR]        (make release runs it)
# 1. an instrumented build of weft (WEFT_PGO=generate) in BUILD_DIR;
# 2. training: scripts/pgo_train.sh runs it on generated traces, which
#    writes the profiles to BUILD_DIR/pgo-profile;
# 3. the whole tree rebuilt in BUILD_DIR with them (WEFT_PGO=use).
# With a compiler other than gcc (CC=clang), a Release build with link-time
# optimization only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
jobs=$(nproc 2>/dev/null || echo 2)
if ! "${CC:-cc}" -v 2>&1 | grep -q "^gcc version"; then
  echo "pgo: ${CC:-cc} is not gcc; building Release without profiles"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWEFT_PGO= \
    -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON >/dev/null
  cmake --build "$build" -j "$jobs"
  exit 0
fi
profiles=$(mkdir -p "$build" && cd "$build" && pwd)/pgo-profile
rm -rf "$profiles"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWEFT_PGO=generate \
  -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON \
  "-DWEFT_PGO_DIR=$profiles" >/dev/null
cmake --build "$build" -j "$jobs" --target weft
scripts/pgo_train.sh "$build/weft"
cmake -S . -B "$build" -DWEFT_PGO=use >/dev/null
cmake --build "$build" -j "$jobs"
echo "pgo: $build/weft built with the profiles of $(find "$profiles" -name '*.gcda' | wc -l) objects"
