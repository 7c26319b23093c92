-- slices.cpu_time: how long each thread slice ran on a CPU, from the
-- scheduling data.

INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE linux.cpu.utilization.slice;
INCLUDE PERFETTO MODULE slices.with_context;

-- For every finished thread slice (dur > 0, not on utid 0) that overlaps
-- its thread's sched slices: the total time of the overlap. Columns: id,
-- name, utid, thread_name, upid, process_name, cpu_time.
--
-- A plain view (Perfetto's is a table) while the C operators it needs are
-- not registered in every build: SQLite binds a plain view's names when it
-- is read, so the module still loads without them.
CREATE VIEW thread_slice_cpu_time AS
WITH on_cpu AS (
  SELECT piece.id_0 AS id, sum(piece.dur) AS cpu_time
  FROM _interval_intersect!((
    (SELECT id, ts, dur, utid FROM thread_slice WHERE utid > 0 AND dur > 0),
    (SELECT id, ts, dur, utid FROM sched WHERE dur > 0)
  ), (utid)) AS piece
  GROUP BY piece.id_0
)
SELECT ts.id, ts.name, ts.utid, ts.thread_name, ts.upid, ts.process_name,
  on_cpu.cpu_time
FROM on_cpu
JOIN thread_slice AS ts USING (id)
ORDER BY ts.id;

-- CPU cycles per thread slice: the rows of cpu_cycles_per_thread_slice
-- (linux.cpu.utilization.slice); millicycles and megacycles are NULL where
-- the CPU frequency is unknown for part of the slice's running time.
CREATE PERFETTO VIEW thread_slice_cpu_cycles(
  id JOINID(slice.id),
  name STRING,
  utid JOINID(thread.id),
  thread_name STRING,
  upid JOINID(process.id),
  process_name STRING,
  millicycles LONG,
  megacycles LONG
) AS
SELECT id, name, utid, thread_name, upid, process_name, millicycles, megacycles
FROM cpu_cycles_per_thread_slice;
