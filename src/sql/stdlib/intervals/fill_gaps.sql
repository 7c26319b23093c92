-- intervals.fill_gaps: intervals padded with NULL-valued ones so that each
-- group covers the whole trace.

-- One NULL per column of a list (for the padding rows' data columns).
CREATE PERFETTO MACRO _intervals_fill_gaps_null(column Expr, position Expr)
RETURNS Expr AS NULL;

-- `data` holds ts, dur, the `group_cols` and the `data_cols`; within a
-- group its intervals must not overlap. The result keeps them and adds,
-- per group, rows with NULL data for the time from the trace's start to
-- the group's first interval, between consecutive intervals, and from its
-- last interval to the trace's end. Rows of no duration are dropped; rows
-- are ordered by ts, then group. `(NULL)` as group_cols makes one group.
-- A group whose rows all have a NULL ts gets one row over the whole trace;
-- an empty `data` gives one such row with every column NULL.
CREATE PERFETTO MACRO _intervals_fill_gaps(
  group_cols ColumnNameList,
  data_cols ColumnNameList,
  data TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH
    _ifg_given AS (
      SELECT ts, dur,
        __weft_list_unparen!($group_cols),
        __weft_list_unparen!($data_cols)
      FROM $data
    ),
    _ifg_ends AS (
      SELECT __weft_list_unparen!($group_cols),
        min(ts) AS first_ts, max(ts + dur) AS last_end
      FROM _ifg_given
      GROUP BY __weft_list_unparen!($group_cols)
    ),
    _ifg_all AS (
      SELECT ts, dur, __weft_list_unparen!($group_cols), __weft_list_unparen!($data_cols)
      FROM _ifg_given
      UNION ALL
      SELECT trace_start(), first_ts - trace_start(), __weft_list_unparen!($group_cols),
        __weft_list_map!(_intervals_fill_gaps_null, $data_cols)
      FROM _ifg_ends
      UNION ALL
      SELECT last_end, trace_end() - last_end, __weft_list_unparen!($group_cols),
        __weft_list_map!(_intervals_fill_gaps_null, $data_cols)
      FROM _ifg_ends
      UNION ALL
      SELECT ts + dur,
        lead(ts) OVER (PARTITION BY __weft_list_unparen!($group_cols) ORDER BY ts) - (ts + dur),
        __weft_list_unparen!($group_cols),
        __weft_list_map!(_intervals_fill_gaps_null, $data_cols)
      FROM _ifg_given
      UNION ALL
      SELECT trace_start(), trace_dur(), __weft_list_unparen!($group_cols),
        __weft_list_map!(_intervals_fill_gaps_null, $data_cols)
      FROM _ifg_ends
      WHERE first_ts IS NULL
      UNION ALL
      SELECT trace_start(), trace_dur(),
        __weft_list_map!(_intervals_fill_gaps_null, $group_cols),
        __weft_list_map!(_intervals_fill_gaps_null, $data_cols)
      WHERE NOT EXISTS (SELECT 1 FROM _ifg_given)
    )
  SELECT * FROM _ifg_all
  WHERE coalesce(dur, 0) > 0
  ORDER BY ts, __weft_list_unparen!($group_cols)
);
