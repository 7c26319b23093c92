-- intervals.intersect: intersections of interval tables, computed by the C
-- operators __weft_interval_intersect / __weft_interval_self_intersect
-- (src/sql/stdlib_ops.h) in O(n log n) plus the output. Tables reach them
-- as __weft_rows_agg pointers; lists of tables and columns are walked with
-- weft's built-in list macros (__weft_list_each! / __weft_list_map!).

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

-- The operator's argument for the `i`th table of the list.
CREATE PERFETTO MACRO _ii_table_rows(t TableOrSubquery, i Expr, keys ColumnNameList)
RETURNS Expr AS _ii_rows!($t, $keys);

-- ", ii.id_<i> AS id_<i>" for the `i`th table of the list.
CREATE PERFETTO MACRO _ii_id_column(t TableOrSubquery, i Expr)
RETURNS Expr AS , ii.__weft_paste!(id_, $i) AS __weft_paste!(id_, $i);

-- ", ii.key_<i> AS <column>" for the `i`th partition column.
CREATE PERFETTO MACRO _ii_key_column(c ColumnName, i Expr)
RETURNS Expr AS , ii.__weft_paste!(key_, $i) AS $c;

-- Every combination of one row of each table `tabs` (a parenthesised list
-- of one to eight tables with id, ts, dur) whose intervals all meet (two
-- meet when they start together or each starts before the other ends)
-- within the same values of the integer partition columns `agg_columns`
-- (a parenthesised list of up to four, possibly empty): ts, dur of the
-- common piece, id_0 ... id_<n-1> the rows' ids in table order, then the
-- partition columns. Durations must not be negative.
CREATE PERFETTO MACRO _interval_intersect(
  tabs TableOrSubquery,
  agg_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  SELECT ii.ts, ii.dur
    __weft_list_each!(_ii_id_column, $tabs)
    __weft_list_each!(_ii_key_column, $agg_columns)
  FROM __weft_interval_intersect(
    __weft_list_map!(_ii_table_rows, $tabs, $agg_columns)) AS ii
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
