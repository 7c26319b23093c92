-- linux.cpu.utilization.slice: cpu cycles spent inside each thread slice.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

-- The slices of thread tracks, with their thread and process.
CREATE PERFETTO VIEW _linux_util_thread_slice AS
SELECT
  s.id,
  s.ts,
  s.dur,
  s.name,
  tt.utid,
  t.name AS thread_name,
  t.upid,
  p.name AS process_name
FROM slice AS s
JOIN thread_track AS tt ON tt.id = s.track_id
JOIN thread AS t USING (utid)
LEFT JOIN process AS p USING (upid);

-- Cycles of the running pieces (with a known frequency) of the slice's
-- thread inside each slice of `slices` (id, ts, dur, utid), and the time they
-- cover. Only slices with a positive duration on a real thread (utid > 0).
CREATE PERFETTO MACRO _linux_util_slice_cycles(slices TableOrSubquery)
RETURNS TableOrSubquery AS (
  SELECT
    s.id AS slice_id,
    sum(min(f.ts + f.dur, s.ts + s.dur) - max(f.ts, s.ts)) AS covered,
    cast(sum((min(f.ts + f.dur, s.ts + s.dur) - max(f.ts, s.ts)) * f.freq / 1000)
      AS INT) AS millicycles,
    cast(sum((min(f.ts + f.dur, s.ts + s.dur) - max(f.ts, s.ts)) * f.freq / 1000)
      / 1e9 AS INT) AS megacycles
  FROM $slices AS s
  JOIN _linux_cpu_freq_per_thread AS f
    ON f.utid = s.utid AND f.ts < s.ts + s.dur AND f.ts + f.dur > s.ts
  WHERE s.dur > 0 AND s.utid > 0 AND f.freq IS NOT NULL
  GROUP BY s.id
);

-- Per thread slice, the cycles its thread ran inside it; NULL unless the
-- thread ran, at a known frequency, for the whole slice.
CREATE PERFETTO TABLE cpu_cycles_per_thread_slice(
  id JOINID(slice.id),
  name STRING,
  utid JOINID(thread.id),
  thread_name STRING,
  upid JOINID(process.id),
  process_name STRING,
  millicycles LONG,
  megacycles LONG
) AS
SELECT
  s.id,
  s.name,
  s.utid,
  s.thread_name,
  s.upid,
  s.process_name,
  c.millicycles,
  c.megacycles
FROM _linux_util_thread_slice AS s
LEFT JOIN _linux_util_slice_cycles!(_linux_util_thread_slice) AS c
  ON c.slice_id = s.id AND c.covered = s.dur
ORDER BY s.id;

-- As cpu_cycles_per_thread_slice for the slices (of positive duration, on a
-- real thread) overlapping [ts, ts + dur), each cut to the interval.
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_slice_in_interval(
  ts TIMESTAMP,
  dur DURATION
)
RETURNS TABLE(
  id JOINID(slice.id),
  name STRING,
  utid JOINID(thread.id),
  thread_name STRING,
  upid JOINID(process.id),
  process_name STRING,
  millicycles LONG,
  megacycles LONG
) AS
WITH _linux_util_cut_slice AS (
  SELECT
    id,
    max(ts, $ts) AS ts,
    min(ts + dur, $ts + $dur) - max(ts, $ts) AS dur,
    name,
    utid,
    thread_name,
    upid,
    process_name
  FROM _linux_util_thread_slice
  WHERE dur > 0 AND utid > 0 AND ts < $ts + $dur AND ts + dur > $ts
)
SELECT
  s.id,
  s.name,
  s.utid,
  s.thread_name,
  s.upid,
  s.process_name,
  c.millicycles,
  c.megacycles
FROM _linux_util_cut_slice AS s
LEFT JOIN _linux_util_slice_cycles!(_linux_util_cut_slice) AS c
  ON c.slice_id = s.id AND c.covered = s.dur
ORDER BY s.id;
