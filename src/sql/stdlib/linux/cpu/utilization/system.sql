-- linux.cpu.utilization.system: utilization and cpu cycles of the whole
-- system.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;

-- Utilization of all non-idle threads per period of `interval` ns (see
-- _linux_util_per_period for how periods are cut).
CREATE PERFETTO FUNCTION cpu_utilization_per_period(interval LONG)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
) AS
SELECT * FROM _linux_util_per_period!($interval, (
  SELECT ts, ts_end FROM sched
  WHERE utid NOT IN (SELECT utid FROM thread WHERE is_idle)
));

-- cpu_utilization_per_period over periods of one second.
CREATE PERFETTO TABLE cpu_utilization_per_second(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
) AS
SELECT ts, utilization, unnormalized_utilization
FROM cpu_utilization_per_period(1000000000);

-- Cycles of all threads on all cpus, in one row.
CREATE PERFETTO TABLE cpu_cycles(
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  sum(millicycles) AS millicycles,
  cast(sum(millicycles) / 1e9 AS INT) AS megacycles,
  sum(runtime) AS runtime,
  min(min_freq) AS min_freq,
  max(max_freq) AS max_freq,
  cast(sum(millicycles) / (sum(runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu;

-- cpu_cycles restricted to [ts, ts + dur); awake_runtime measures the same
-- time on the monotonic clock (which stops while the device is suspended).
CREATE PERFETTO FUNCTION cpu_cycles_in_interval(ts TIMESTAMP, dur LONG)
RETURNS TABLE(
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  awake_runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  cast(sum(dur * freq / 1000) AS INT) AS millicycles,
  cast(sum(dur * freq / 1000) / 1e9 AS INT) AS megacycles,
  sum(dur) AS runtime,
  sum(to_monotonic(ts + dur) - to_monotonic(ts)) AS awake_runtime,
  min(freq) AS min_freq,
  max(freq) AS max_freq,
  cast(sum(dur * freq / 1000)
    / (sum(iif(freq IS NULL, NULL, dur)) / 1000) AS INT) AS avg_freq
FROM _linux_cpu_freq_per_thread_in($ts, $dur);

-- Awake runtime of all threads in [ts, ts + dur) as a percentage of the
-- interval's awake time, per cpu (normalized) and in total (unnormalized),
-- rounded to 2 decimals.
CREATE PERFETTO FUNCTION cpu_utilization_in_interval(ts TIMESTAMP, dur LONG)
RETURNS TABLE(
  awake_dur LONG,
  awake_utilization DOUBLE,
  awake_unnormalized_utilization DOUBLE
) AS
SELECT
  awake_runtime AS awake_dur,
  round(awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts))
    / (SELECT max(cpu) + 1 FROM cpu), 2) AS awake_utilization,
  round(awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts)), 2)
    AS awake_unnormalized_utilization
FROM cpu_cycles_in_interval($ts, $dur);

-- Cycles per machine-unique cpu over the whole trace.
CREATE PERFETTO TABLE cpu_cycles_per_cpu(
  ucpu JOINID(cpu.id),
  cpu LONG,
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  ucpu,
  max(cpu) AS cpu,
  sum(millicycles) AS millicycles,
  cast(sum(millicycles) / 1e9 AS INT) AS megacycles,
  sum(runtime) AS runtime,
  min(min_freq) AS min_freq,
  max(max_freq) AS max_freq,
  cast(sum(millicycles) / (sum(runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu
GROUP BY ucpu
ORDER BY ucpu;

-- cpu_cycles_per_cpu restricted to [ts, ts + dur).
CREATE PERFETTO FUNCTION cpu_cycles_per_cpu_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  ucpu JOINID(cpu.id),
  cpu LONG,
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
) AS
SELECT
  ucpu,
  max(cpu) AS cpu,
  cast(sum(dur * freq / 1000) AS INT) AS millicycles,
  cast(sum(dur * freq / 1000) / 1e9 AS INT) AS megacycles,
  sum(dur) AS runtime,
  min(freq) AS min_freq,
  max(freq) AS max_freq,
  cast(sum(dur * freq / 1000)
    / (sum(iif(freq IS NULL, NULL, dur)) / 1000) AS INT) AS avg_freq
FROM _linux_cpu_freq_per_thread_in($ts, $dur)
GROUP BY ucpu
ORDER BY ucpu;
