-- android.dvfs: the frequency of the DVFS domains and devfreq devices of
-- Pixel SoCs, from their "<clock> Frequency" counter tracks (clock_set_rate).

-- The clock tracks read, by name.
CREATE PERFETTO TABLE _android_dvfs_track_name(name STRING) AS
SELECT column1 AS name
FROM (VALUES
  ('domain@0 Frequency'), ('domain@1 Frequency'), ('domain@2 Frequency'),
  ('17000010.devfreq_mif Frequency'), ('17000020.devfreq_int Frequency'),
  ('17000090.devfreq_dsu Frequency'), ('170000a0.devfreq_bci Frequency'),
  ('dsu_throughput Frequency'), ('bus_throughput Frequency'),
  ('cpu0dsu Frequency'), ('cpu1dsu Frequency'), ('cpu2dsu Frequency'),
  ('cpu3dsu Frequency'), ('cpu4dsu Frequency'), ('cpu5dsu Frequency'),
  ('cpu6dsu Frequency'), ('cpu7dsu Frequency'), ('cpu8dsu Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu0_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu1_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu2_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu3_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu4_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu5_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu6_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu7_memlat@17000010 Frequency'),
  ('gs_memlat_devfreq:devfreq_mif_cpu8_memlat@17000010 Frequency'));

-- Each sample of a DVFS clock track, lasting until the track's next sample
-- (the last one until the trace's end).
CREATE PERFETTO VIEW android_dvfs_counters(
  name STRING,
  ts TIMESTAMP,
  value DOUBLE,
  dur DURATION
) AS
SELECT
  clock.name,
  sample.ts,
  sample.value,
  coalesce(lead(sample.ts) OVER (PARTITION BY clock.id ORDER BY sample.ts), trace_end())
    - sample.ts AS dur
FROM counter AS sample
JOIN counter_track AS clock ON clock.id = sample.track_id
WHERE clock.name IN (SELECT name FROM _android_dvfs_track_name)
ORDER BY sample.ts;

-- Per clock name, over its samples of positive duration: the largest and
-- smallest value, the time from the first to the last of them, and the
-- value's average weighted by duration.
CREATE PERFETTO TABLE android_dvfs_counter_stats(
  name STRING,
  max DOUBLE,
  min DOUBLE,
  dur DURATION,
  wgt_avg DOUBLE
) AS
SELECT
  name,
  max(value) AS max,
  min(value) AS min,
  max(ts) - min(ts) AS dur,
  sum(dur * value) / sum(dur) AS wgt_avg
FROM android_dvfs_counters
WHERE dur > 0
GROUP BY name
ORDER BY name;

-- Per clock name and value: the time spent at the value, and its share (in
-- percent) of the time covered by that clock's samples.
CREATE PERFETTO VIEW android_dvfs_counter_residency(
  name STRING,
  value DOUBLE,
  dur DURATION,
  pct DOUBLE
) AS
WITH per_value AS (
  SELECT name, value, sum(dur) AS dur
  FROM android_dvfs_counters
  WHERE dur > 0
  GROUP BY name, value
)
SELECT
  per_value.name,
  per_value.value,
  per_value.dur,
  per_value.dur * 100.0 / sum(per_value.dur) OVER (PARTITION BY per_value.name) AS pct
FROM per_value
ORDER BY per_value.name, per_value.value;
