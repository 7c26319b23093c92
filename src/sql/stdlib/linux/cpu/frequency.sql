-- linux.cpu.frequency: cpu frequency (cpufreq counters) as intervals.

INCLUDE PERFETTO MODULE linux.counter_runs;

-- One row per interval during which a cpu keeps its frequency (kHz), per
-- cpufreq track; ucpu is the machine-unique cpu, cpu its number.
CREATE PERFETTO TABLE cpu_frequency_counters(
  id LONG,
  track_id JOINID(track.id),
  ts TIMESTAMP,
  dur DURATION,
  freq LONG,
  ucpu LONG,
  cpu LONG
) AS
SELECT
  i.id,
  i.track_id,
  i.ts,
  i.dur,
  cast(i.value AS INT) AS freq,
  c.ucpu,
  t.cpu
FROM _linux_counter_leading_intervals!((
  SELECT counter.id, counter.ts, counter.track_id, counter.value
  FROM counter
  JOIN cpu_counter_track AS f
    ON f.id = counter.track_id AND f.name = 'cpufreq'
)) AS i
JOIN cpu_counter_track AS t ON t.id = i.track_id
LEFT JOIN cpu AS c ON c.cpu = t.cpu AND c.machine_id IS t.machine_id
ORDER BY i.track_id, i.ts;
