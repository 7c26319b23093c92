-- linux.cpu.idle_stats: time each cpu spent in each idle state.

INCLUDE PERFETTO MODULE linux.cpu.idle;

-- Per cpu number and idle state (the C-state: the counter's idle value + 1),
-- how often and how long the cpu was in it, and the share of the cpu's whole
-- counted time (active and idle) in percent. Each machine's cpus are
-- counted apart (one row per cpuidle track and state).
CREATE PERFETTO TABLE cpu_idle_stats(
  cpu LONG,
  state LONG,
  count LONG,
  dur DURATION,
  avg_dur DURATION,
  idle_percent DOUBLE
) AS
WITH
  _linux_idle_stats_cpu_total AS (
    SELECT track_id, sum(dur) AS total_dur
    FROM cpu_idle_counters
    GROUP BY track_id
  ),
  _linux_idle_stats_per_state AS (
    SELECT
      track_id, cpu, idle + 1 AS state, count(*) AS count, sum(dur) AS dur
    FROM cpu_idle_counters
    WHERE idle >= 0
    GROUP BY track_id, idle
  )
SELECT
  s.cpu,
  s.state,
  s.count,
  s.dur,
  s.dur / s.count AS avg_dur,
  s.dur * 100.0 / t.total_dur AS idle_percent
FROM _linux_idle_stats_per_state AS s
JOIN _linux_idle_stats_cpu_total AS t USING (track_id)
ORDER BY s.cpu, s.track_id, s.state;
