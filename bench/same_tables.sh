#!/usr/bin/env bash
# Whether two weft binaries load the same tables: dumps every table the
# importers fill (whole rows in id order, and the non-zero stats) from each
# TRACE with both binaries and compares the dumps. For checking that a
# speed change changed no result.
#   bench/same_tables.sh WEFT_A WEFT_B TRACE...    (exit 1 if any differ)
# Env: THREADS_A / THREADS_B (default 1 and 2), so that the comparison also
# covers --threads.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 WEFT_A WEFT_B TRACE..." >&2
  exit 2
fi
a=$1 b=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in slice sched thread_state counter args thread process track machine cpu \
         ftrace_event flow clock_snapshot metadata trace_file; do
  echo "select * from $t order by id;"
done > "$tmp/dump.sql"
echo "select name, idx, severity, source, value, machine_id, trace_id from stats" \
     "where value != 0 and name not glob '*_duration_ns'" \
     "order by name, idx, machine_id, trace_id;" >> "$tmp/dump.sql"
status=0
for trace in "$@"; do
  "$a" --threads "${THREADS_A:-1}" --quiet -q "$tmp/dump.sql" "$trace" > "$tmp/a"
  "$b" --threads "${THREADS_B:-2}" --quiet -q "$tmp/dump.sql" "$trace" > "$tmp/b"
  if cmp -s "$tmp/a" "$tmp/b"; then
    echo "same: $trace ($(wc -l < "$tmp/a") lines)"
  else
    echo "DIFFERENT: $trace (first difference below)"
    diff "$tmp/a" "$tmp/b" | head -5 || true
    status=1
  fi
done
exit $status
