-- linux.cpu.utilization.thread_cpu: cpu cycles per thread and cpu.
--
-- Cycles are runtime times frequency: a piece of `dur` ns at `freq` kHz
-- makes dur * freq / 1000 millicycles (integer arithmetic on each piece).
-- Pieces with no known frequency add runtime but no cycles.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

-- Per thread and machine-unique cpu, over the whole trace.
CREATE PERFETTO TABLE cpu_cycles_per_thread_per_cpu(
  utid JOINID(thread.id),
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
  utid,
  ucpu,
  max(cpu) AS cpu,
  cast(sum(dur * freq / 1000) AS INT) AS millicycles,
  cast(sum(dur * freq / 1000) / 1e9 AS INT) AS megacycles,
  sum(dur) AS runtime,
  min(freq) AS min_freq,
  max(freq) AS max_freq,
  cast(sum(dur * freq / 1000) / (sum(dur) / 1000) AS INT) AS avg_freq
FROM _linux_cpu_freq_per_thread
GROUP BY utid, ucpu
ORDER BY utid, ucpu;

-- As cpu_cycles_per_thread_per_cpu, counting only the time inside
-- [ts, ts + dur); the average frequency is over the time with a known one.
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_per_cpu_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  utid JOINID(thread.id),
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
  utid,
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
GROUP BY utid, ucpu
ORDER BY utid, ucpu;
