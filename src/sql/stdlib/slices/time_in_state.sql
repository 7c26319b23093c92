-- slices.time_in_state: how long each thread slice spent in each
-- scheduling state of its thread.

INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE slices.with_context;

-- For every finished thread slice (dur > 0, not on utid 0): the time it
-- overlapped each (state, io_wait, blocked_function) of its thread's
-- thread_state rows (those with dur > 0). Columns: id, name, utid,
-- thread_name, upid, process_name, state, io_wait, blocked_function, dur.
--
-- A plain view (Perfetto's is a table), as thread_slice_cpu_time.
CREATE VIEW thread_slice_time_in_state AS
WITH piece AS (
  SELECT ii.id_0 AS id, ii.id_1 AS state_id, ii.dur
  FROM _interval_intersect!((
    (SELECT id, ts, dur, utid FROM thread_slice WHERE utid > 0 AND dur > 0),
    (SELECT id, ts, dur, utid FROM thread_state WHERE dur > 0)
  ), (utid)) AS ii
)
SELECT ts.id, ts.name, ts.utid, ts.thread_name, ts.upid, ts.process_name,
  st.state, st.io_wait, st.blocked_function, sum(piece.dur) AS dur
FROM piece
JOIN thread_slice AS ts USING (id)
JOIN thread_state AS st ON st.id = piece.state_id
GROUP BY ts.id, st.state, st.io_wait, st.blocked_function
ORDER BY ts.id, st.state, st.io_wait, st.blocked_function;
