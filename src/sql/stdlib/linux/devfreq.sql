-- linux.devfreq: device frequencies from devfreq/devfreq_frequency.

INCLUDE PERFETTO MODULE linux.counter_runs;

-- Frequency intervals (kHz) of the ARM DSU, the devfreq device "dsufreq":
-- counters on tracks of type linux_device_frequency whose linux_device
-- dimension is "dsufreq" (Perfetto names such a track "devfreq_dsufreq").
CREATE PERFETTO TABLE linux_devfreq_dsu_counter(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  dsu_freq LONG
) AS
SELECT i.id, i.ts, i.dur, cast(i.value AS INT) AS dsu_freq
FROM _linux_counter_leading_intervals!((
  SELECT c.id, c.ts, c.track_id, c.value
  FROM counter AS c
  JOIN track AS t ON t.id = c.track_id
  WHERE t.type = 'linux_device_frequency'
    AND extract_arg(t.dimension_arg_set_id, 'linux_device') = 'dsufreq'
)) AS i
ORDER BY i.track_id, i.ts;
