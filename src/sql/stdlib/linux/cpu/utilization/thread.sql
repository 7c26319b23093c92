-- linux.cpu.utilization.thread: utilization and cpu cycles per thread.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;

-- Utilization of one thread per period of `interval` ns (see
-- _linux_util_per_period for how periods are cut).
CREATE PERFETTO FUNCTION cpu_thread_utilization_per_period(
  interval LONG,
  utid JOINID(thread.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM _linux_util_per_period!($interval, (
  SELECT ts, ts_end FROM sched WHERE utid = $utid
));

-- cpu_thread_utilization_per_period over periods of one second.
CREATE PERFETTO FUNCTION cpu_thread_utilization_per_second(
  utid JOINID(thread.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM cpu_thread_utilization_per_period(1000000000, $utid);

-- Cycles per thread over the whole trace (the average frequency divides by
-- the runtime in whole microseconds of each piece).
CREATE PERFETTO TABLE cpu_cycles_per_thread(
  utid JOINID(thread.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  utid,
  cast(sum(dur * freq / 1000) AS INT) AS millicycles,
  cast(sum(dur * freq / 1000) / 1e9 AS INT) AS megacycles,
  sum(dur) AS runtime,
  min(freq) AS min_freq,
  max(freq) AS max_freq,
  cast(sum(dur * freq / 1000) / sum(dur / 1000) AS INT) AS avg_freq
FROM _linux_cpu_freq_per_thread
GROUP BY utid
ORDER BY utid;

-- Cycles per thread inside [ts, ts + dur), with the awake (monotonic) time.
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  utid JOINID(thread.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  awake_runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  utid,
  cast(sum(dur * freq / 1000) AS INT) AS millicycles,
  cast(sum(dur * freq / 1000) / 1e9 AS INT) AS megacycles,
  sum(dur) AS runtime,
  sum(to_monotonic(ts + dur) - to_monotonic(ts)) AS awake_runtime,
  min(freq) AS min_freq,
  max(freq) AS max_freq,
  cast(sum(dur * freq / 1000)
    / (sum(iif(freq IS NULL, NULL, dur)) / 1000) AS INT) AS avg_freq
FROM _linux_cpu_freq_per_thread_in($ts, $dur)
GROUP BY utid
ORDER BY utid;

-- Per thread, its awake runtime in [ts, ts + dur) as a percentage of the
-- interval's awake time, per cpu and in total, rounded to 6 decimals.
CREATE PERFETTO FUNCTION cpu_thread_utilization_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  upid JOINID(process.id),
  utid JOINID(thread.id),
  thread_name STRING,
  awake_dur LONG,
  awake_utilization DOUBLE,
  awake_unnormalized_utilization DOUBLE
) AS
SELECT
  t.upid,
  c.utid,
  t.name AS thread_name,
  c.awake_runtime AS awake_dur,
  round(c.awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts))
    / (SELECT max(cpu) + 1 FROM cpu), 6) AS awake_utilization,
  round(c.awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts)), 6)
    AS awake_unnormalized_utilization
FROM cpu_cycles_per_thread_in_interval($ts, $dur) AS c
JOIN thread AS t USING (utid)
ORDER BY c.utid;
