-- linux.cpu.idle: cpu idle states (cpuidle counters) as intervals.

INCLUDE PERFETTO MODULE linux.counter_runs;

-- One row per interval during which a cpu keeps its idle state, per cpuidle
-- track. The kernel's "active" value 4294967295 becomes -1.
CREATE PERFETTO TABLE cpu_idle_counters(
  id LONG,
  track_id JOINID(track.id),
  ts TIMESTAMP,
  dur DURATION,
  idle LONG,
  cpu LONG
) AS
SELECT
  i.id,
  i.track_id,
  i.ts,
  i.dur,
  cast(iif(i.value = 4294967295, -1, i.value) AS INT) AS idle,
  t.cpu
FROM _linux_counter_leading_intervals!((
  SELECT counter.id, counter.ts, counter.track_id, counter.value
  FROM counter
  JOIN cpu_counter_track AS f
    ON f.id = counter.track_id AND f.name = 'cpuidle'
)) AS i
JOIN cpu_counter_track AS t ON t.id = i.track_id
ORDER BY i.track_id, i.ts;
