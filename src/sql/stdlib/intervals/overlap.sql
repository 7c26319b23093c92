-- intervals.overlap: how many intervals are open over time, and merging
-- intervals that overlap.

INCLUDE PERFETTO MODULE intervals.intersect;

-- One row per distinct start or end point of `segments`: ts, and value,
-- the number of intervals open from ts until the next point. An interval
-- of dur -1 (unfinished) never closes.
CREATE PERFETTO MACRO intervals_overlap_count(
  segments TableOrSubquery,
  ts_column ColumnName,
  dur_column ColumnName
)
RETURNS TableOrSubquery AS
(
  SELECT point.ts,
    sum(point.change) OVER (ORDER BY point.ts ROWS UNBOUNDED PRECEDING) AS value
  FROM (
    SELECT
      iif(edge.opens, seg.$ts_column, seg.$ts_column + seg.$dur_column) AS ts,
      sum(iif(edge.opens, 1, -1)) AS change
    FROM $segments AS seg
    JOIN (SELECT 1 AS opens UNION ALL SELECT 0) AS edge
      ON edge.opens OR seg.$dur_column != -1
    GROUP BY 1
  ) AS point
  ORDER BY point.ts
);

-- As intervals_overlap_count, counted separately for each value of
-- `group_column`: ts, value, group_name.
CREATE PERFETTO MACRO intervals_overlap_count_by_group(
  segments TableOrSubquery,
  ts_column ColumnName,
  dur_column ColumnName,
  group_column ColumnName
)
RETURNS TableOrSubquery AS
(
  SELECT point.ts,
    sum(point.change) OVER (
      PARTITION BY point.group_name ORDER BY point.ts ROWS UNBOUNDED PRECEDING
    ) AS value,
    point.group_name
  FROM (
    SELECT
      iif(edge.opens, seg.$ts_column, seg.$ts_column + seg.$dur_column) AS ts,
      seg.$group_column AS group_name,
      sum(iif(edge.opens, 1, -1)) AS change
    FROM $segments AS seg
    JOIN (SELECT 1 AS opens UNION ALL SELECT 0) AS edge
      ON edge.opens OR seg.$dur_column != -1
    GROUP BY 1, 2
  ) AS point
  ORDER BY point.ts, point.group_name
);

-- Intervals (ts, dur) in time order, each marked `starts_run` when it
-- begins later than `epsilon` after the furthest end of the ones before it
-- in its partition `part` (an expression over the row), and numbered by run.
CREATE PERFETTO MACRO _interval_runs(
  intervals TableOrSubquery,
  part Expr,
  epsilon Expr
)
RETURNS TableOrSubquery AS
(
  SELECT marked.*,
    sum(marked.starts_run) OVER (
      PARTITION BY marked.__run_part ORDER BY marked.ts, marked.__run_row
      ROWS UNBOUNDED PRECEDING
    ) AS run
  FROM (
    SELECT numbered.*,
      coalesce(numbered.ts > max(numbered.ts + numbered.dur) OVER (
        PARTITION BY numbered.__run_part ORDER BY numbered.ts, numbered.__run_row
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) + ($epsilon), 1) AS starts_run
    FROM (
      SELECT src.*, $part AS __run_part, row_number() OVER () AS __run_row
      FROM $intervals AS src
    ) AS numbered
  ) AS marked
);

-- The fewest intervals (ts, dur) covering `intervals`: intervals are
-- closed, and ones that overlap or come within `epsilon` of each other
-- merge. A merged run of zero length (zero-duration intervals only) is
-- reported from the end of the run before it to its point (NULL ts and
-- dur when it is the first run), as the reference does.
CREATE PERFETTO MACRO interval_merge_overlapping(
  intervals TableOrSubquery,
  epsilon Expr
)
RETURNS TableOrSubquery AS
(
  SELECT
    iif(merged.run_end = merged.run_ts, merged.before_end, merged.run_ts) AS ts,
    iif(merged.run_end = merged.run_ts, merged.run_ts - merged.before_end,
      merged.run_end - merged.run_ts) AS dur
  FROM (
    SELECT run_ts, run_end, lag(run_end) OVER (ORDER BY run) AS before_end
    FROM (
      SELECT run, min(ts) AS run_ts, max(ts + dur) AS run_end
      FROM _interval_runs!($intervals, 0, $epsilon)
      GROUP BY run
    )
  ) AS merged
  ORDER BY merged.run_ts
);

-- ", runs.<c> AS <c>" for partition column `c` (the `i`th).
CREATE PERFETTO MACRO _iv_partition_column(c ColumnName, i Expr)
RETURNS Expr AS , runs.$c AS $c;

-- interval_merge_overlapping within each value of the partition columns
-- `partition_columns` (a parenthesised list), epsilon 0: ts, dur, then the
-- partition columns. Ordered by partition, then ts.
CREATE PERFETTO MACRO interval_merge_overlapping_partitioned(
  intervals TableOrSubquery,
  partition_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  WITH runs AS (
    SELECT * FROM _interval_runs!($intervals, json_array $partition_columns, 0)
  ),
  merged AS (
    SELECT min(ts) AS merged_ts, max(ts + dur) - min(ts) AS merged_dur,
      min(__run_row) AS first_row
    FROM runs
    GROUP BY __run_part, run
  )
  SELECT merged.merged_ts AS ts, merged.merged_dur AS dur
    __weft_list_each!(_iv_partition_column, $partition_columns)
  FROM merged
  JOIN runs ON runs.__run_row = merged.first_row
  ORDER BY runs.__run_part, merged.merged_ts
);
