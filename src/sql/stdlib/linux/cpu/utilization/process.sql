-- linux.cpu.utilization.process: utilization and cpu cycles per process.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;

-- Utilization of one process's non-idle threads per period of `interval` ns
-- (see _linux_util_per_period for how periods are cut).
CREATE PERFETTO FUNCTION cpu_process_utilization_per_period(
  interval LONG,
  upid JOINID(process.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM _linux_util_per_period!($interval, (
  SELECT s.ts, s.ts_end FROM sched AS s
  JOIN thread AS t USING (utid)
  WHERE t.upid = $upid AND NOT t.is_idle
));

-- cpu_process_utilization_per_period over periods of one second.
CREATE PERFETTO FUNCTION cpu_process_utilization_per_second(
  upid JOINID(process.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM cpu_process_utilization_per_period(1000000000, $upid);

-- Cycles per process over the whole trace (threads without a process are
-- left out).
CREATE PERFETTO TABLE cpu_cycles_per_process(
  upid JOINID(process.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  t.upid,
  sum(c.millicycles) AS millicycles,
  cast(sum(c.millicycles) / 1e9 AS INT) AS megacycles,
  sum(c.runtime) AS runtime,
  min(c.min_freq) AS min_freq,
  max(c.max_freq) AS max_freq,
  cast(sum(c.millicycles) / (sum(c.runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu AS c
JOIN thread AS t USING (utid)
WHERE t.upid IS NOT NULL
GROUP BY t.upid
ORDER BY t.upid;

-- Cycles per process inside [ts, ts + dur), with the awake (monotonic) time.
CREATE PERFETTO FUNCTION cpu_cycles_per_process_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  upid JOINID(process.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  awake_runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  t.upid,
  cast(sum(p.dur * p.freq / 1000) AS INT) AS millicycles,
  cast(sum(p.dur * p.freq / 1000) / 1e9 AS INT) AS megacycles,
  sum(p.dur) AS runtime,
  sum(to_monotonic(p.ts + p.dur) - to_monotonic(p.ts)) AS awake_runtime,
  min(p.freq) AS min_freq,
  max(p.freq) AS max_freq,
  cast(sum(p.dur * p.freq / 1000)
    / (sum(iif(p.freq IS NULL, NULL, p.dur)) / 1000) AS INT) AS avg_freq
FROM _linux_cpu_freq_per_thread_in($ts, $dur) AS p
JOIN thread AS t USING (utid)
GROUP BY t.upid
ORDER BY t.upid;

-- Per process, its awake runtime in [ts, ts + dur) as a percentage of the
-- interval's awake time, per cpu and in total, rounded to 6 decimals.
CREATE PERFETTO FUNCTION cpu_process_utilization_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  upid JOINID(process.id),
  process_name STRING,
  awake_dur LONG,
  awake_utilization DOUBLE,
  awake_unnormalized_utilization DOUBLE
) AS
SELECT
  c.upid,
  p.name AS process_name,
  c.awake_runtime AS awake_dur,
  round(c.awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts))
    / (SELECT max(cpu) + 1 FROM cpu), 6) AS awake_utilization,
  round(c.awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts)), 6)
    AS awake_unnormalized_utilization
FROM cpu_cycles_per_process_in_interval($ts, $dur) AS c
JOIN process AS p USING (upid)
ORDER BY c.upid;
