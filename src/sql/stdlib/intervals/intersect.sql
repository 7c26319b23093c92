-- intervals.intersect: intersections of interval tables, computed by the C
-- operators __weft_interval_intersect / __weft_interval_self_intersect
-- (src/sql/stdlib_ops.h) in O(n log n) plus the output. Tables reach them
-- as __weft_rows_agg pointers.

-- The first / second of two tables given as one parenthesised list: a
-- macro body writing `_ii_first!$list` reads `_ii_first!(a, b)` once the
-- list is substituted.
CREATE PERFETTO MACRO _ii_first(a TableOrSubquery, b TableOrSubquery)
RETURNS TableOrSubquery AS $a;

CREATE PERFETTO MACRO _ii_second(a TableOrSubquery, b TableOrSubquery)
RETURNS TableOrSubquery AS $b;

-- Rows (id, ts, dur, k0, k1, k2, k3) of table `t` for the operator: the
-- partition columns `keys` (a parenthesised list, possibly empty) go through
-- a JSON array so that any number of them (up to four) fills the key slots.
CREATE PERFETTO MACRO _ii_rows(t TableOrSubquery, keys ColumnNameList)
RETURNS Expr AS
(
  SELECT __weft_rows_agg(src.id, src.ts, src.dur,
    src.__ii_key ->> 0, src.__ii_key ->> 1, src.__ii_key ->> 2, src.__ii_key ->> 3)
  FROM (SELECT *, json_array $keys AS __ii_key FROM $t) AS src
);

-- Every (row of the first table, row of the second) pair of intervals that
-- meet (start together, or each starts before the other ends) within the
-- same values of the partition columns `agg_columns`: ts, dur of the
-- common piece, id_0 / id_1 the rows' ids, then the first table's columns
-- (among them the partition columns). Two tables only; durations must not
-- be negative.
CREATE PERFETTO MACRO _interval_intersect(
  tabs TableOrSubquery,
  agg_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  SELECT ii.ts, ii.dur, ii.id_0, ii.id_1, first_row.*
  FROM __weft_interval_intersect(
    _ii_rows!(_ii_first!$tabs, $agg_columns),
    _ii_rows!(_ii_second!$tabs, $agg_columns)) AS ii
  JOIN _ii_first!$tabs AS first_row ON first_row.id = ii.id_0
);

-- The pieces of table `t`'s intervals inside [ts, ts + dur): id, ts, dur.
CREATE PERFETTO MACRO _interval_intersect_single(
  ts Expr,
  dur Expr,
  t TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT ii.id_0 AS id, ii.ts, ii.dur
  FROM __weft_interval_intersect(
    (SELECT __weft_rows_agg(src.id, src.ts, src.dur) FROM $t AS src),
    (SELECT __weft_rows_agg(0, $ts, $dur))) AS ii
);

-- For the intervals (id, ts, dur) of `intervals`: every distinct start or
-- end point, numbered from 1 in time order (group_id), lasting until the
-- next point (dur; 0 for the last); one row per point each interval covers
-- (start included, end excluded) with interval_ends_at_ts 0, then one row
-- per interval at its end point with interval_ends_at_ts 1.
CREATE PERFETTO MACRO interval_self_intersect(intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT ts, dur, group_id, id, interval_ends_at_ts
  FROM __weft_interval_self_intersect(
    (SELECT __weft_rows_agg(src.id, src.ts, src.dur) FROM $intervals AS src))
);
