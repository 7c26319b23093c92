-- sched.time_in_state: how a thread's time splits between scheduling states.

-- Per thread and state, the summed durations of its thread states. Like
-- Perfetto, the sums take durations as stored: an unfinished state adds -1.
CREATE PERFETTO TABLE sched_time_in_state_for_thread(
  utid JOINID(thread.id),
  total_runtime LONG,
  state STRING,
  time_in_state LONG,
  percentage_in_state LONG
) AS
WITH
  _sched_tis_per_state AS (
    SELECT utid, state, sum(dur) AS time_in_state
    FROM thread_state
    GROUP BY utid, state
  ),
  _sched_tis_per_thread AS (
    SELECT utid, sum(time_in_state) AS total_runtime
    FROM _sched_tis_per_state
    GROUP BY utid
  )
SELECT
  s.utid,
  t.total_runtime,
  s.state,
  s.time_in_state,
  s.time_in_state * 100 / t.total_runtime AS percentage_in_state
FROM _sched_tis_per_state AS s
JOIN _sched_tis_per_thread AS t USING (utid)
ORDER BY s.utid, s.state;

-- One row per thread: the percentage (rounded towards zero) of its time in
-- each group of states; NULL for a group the thread never was in.
CREATE PERFETTO TABLE sched_percentage_of_time_in_state(
  utid JOINID(thread.id),
  running LONG,
  runnable LONG,
  runnable_preempted LONG,
  sleeping LONG,
  uninterruptible_sleep LONG,
  other LONG
) AS
SELECT
  utid,
  max(iif(state = 'Running', percentage_in_state, NULL)) AS running,
  max(iif(state = 'R', percentage_in_state, NULL)) AS runnable,
  max(iif(state = 'R+', percentage_in_state, NULL)) AS runnable_preempted,
  max(iif(state = 'S', percentage_in_state, NULL)) AS sleeping,
  max(iif(state = 'D', percentage_in_state, NULL)) AS uninterruptible_sleep,
  sum(iif(state IN ('T', 't', 'X', 'Z', 'x', 'I', 'K', 'W', 'P', 'N'),
          time_in_state, NULL)) * 100 / total_runtime AS other
FROM sched_time_in_state_for_thread
GROUP BY utid
ORDER BY utid;

-- The thread's time in [ts, ts + dur) per (state, io_wait, blocked_function),
-- longest first. Only states with a positive duration count.
CREATE PERFETTO FUNCTION sched_time_in_state_for_thread_in_interval(
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id)
)
RETURNS TABLE(
  state STRING,
  io_wait BOOL,
  blocked_function LONG,
  dur DURATION
) AS
SELECT
  state,
  io_wait,
  blocked_function,
  sum(min(ts + dur, $ts + $dur) - max(ts, $ts)) AS dur
FROM thread_state
WHERE utid = $utid AND dur > 0 AND ts < $ts + $dur AND ts + dur > $ts
GROUP BY state, io_wait, blocked_function
ORDER BY 4 DESC;

-- As sched_time_in_state_for_thread_in_interval, also split by cpu.
CREATE PERFETTO FUNCTION sched_time_in_state_and_cpu_for_thread_in_interval(
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id)
)
RETURNS TABLE(
  state STRING,
  io_wait BOOL,
  cpu LONG,
  blocked_function LONG,
  dur DURATION
) AS
SELECT
  state,
  io_wait,
  cpu,
  blocked_function,
  sum(min(ts + dur, $ts + $dur) - max(ts, $ts)) AS dur
FROM thread_state
WHERE utid = $utid AND dur > 0 AND ts < $ts + $dur AND ts + dur > $ts
GROUP BY state, io_wait, cpu, blocked_function
ORDER BY 5 DESC;

-- Per end state, the time the sched slices of the cpu (finished slices only)
-- spent in [ts, ts + dur). The cpu is taken as a machine-unique cpu
-- (ucpu), which is the cpu number on a single machine; on merged machines
-- each machine's cpus stay apart.
CREATE PERFETTO FUNCTION sched_time_in_state_for_cpu_in_interval(
  cpu LONG,
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  end_state STRING,
  dur LONG
) AS
SELECT
  end_state,
  sum(min(ts + dur, $ts + $dur) - max(ts, $ts)) AS dur
FROM sched
WHERE ucpu = $cpu AND dur != -1 AND ts < $ts + $dur AND ts + dur > $ts
GROUP BY end_state;
