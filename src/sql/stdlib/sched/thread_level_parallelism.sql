-- sched.thread_level_parallelism: how many threads are runnable, in
-- uninterruptible sleep, or running over time.
--
-- Each table is a counter: a row at every timestamp where an interval starts
-- or ends (ends of unfinished intervals, dur -1, are never reached), with
-- the number of intervals open from there to the next row.

-- Threads in the 'R' state over time.
CREATE PERFETTO TABLE sched_runnable_thread_count(
  ts TIMESTAMP,
  runnable_thread_count LONG
) AS
WITH _sched_tlp_edges AS (
  SELECT ts, 1 AS delta FROM thread_state WHERE state = 'R'
  UNION ALL
  SELECT ts + dur, -1 FROM thread_state WHERE state = 'R' AND dur != -1
)
SELECT ts, sum(sum(delta)) OVER (ORDER BY ts) AS runnable_thread_count
FROM _sched_tlp_edges
GROUP BY ts
ORDER BY ts;

-- Threads in the 'D' state over time.
CREATE PERFETTO TABLE sched_uninterruptible_sleep_thread_count(
  ts TIMESTAMP,
  uninterruptible_sleep_thread_count LONG
) AS
WITH _sched_tlp_edges AS (
  SELECT ts, 1 AS delta FROM thread_state WHERE state = 'D'
  UNION ALL
  SELECT ts + dur, -1 FROM thread_state WHERE state = 'D' AND dur != -1
)
SELECT ts, sum(sum(delta)) OVER (ORDER BY ts)
  AS uninterruptible_sleep_thread_count
FROM _sched_tlp_edges
GROUP BY ts
ORDER BY ts;

-- CPUs running a thread other than an idle (swapper) thread over time.
CREATE PERFETTO TABLE sched_active_cpu_count(
  ts TIMESTAMP,
  active_cpu_count LONG
) AS
WITH
  _sched_tlp_busy AS (
    SELECT ts, dur FROM sched
    WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle)
  ),
  _sched_tlp_edges AS (
    SELECT ts, 1 AS delta FROM _sched_tlp_busy
    UNION ALL
    SELECT ts + dur, -1 FROM _sched_tlp_busy WHERE dur != -1
  )
SELECT ts, sum(sum(delta)) OVER (ORDER BY ts) AS active_cpu_count
FROM _sched_tlp_edges
GROUP BY ts
ORDER BY ts;
