-- android.battery: the battery's counters side by side, one row per moment
-- at which any "batt.*" counter track has a sample.

-- Samples of the battery counter track called `track_name`, as (ts, value).
CREATE PERFETTO MACRO _android_battery_samples(track_name Expr)
RETURNS TableOrSubquery AS
(
  SELECT sample.ts, sample.value
  FROM counter AS sample
  JOIN counter_track AS battery_track ON battery_track.id = sample.track_id
  WHERE battery_track.name = $track_name
);

-- Battery charge at timestamp. A column is NULL at a moment its track has
-- no sample; a track sampled twice at one moment repeats the row.
CREATE PERFETTO VIEW android_battery_charge(
  ts TIMESTAMP,
  current_avg_ua DOUBLE,
  capacity_percent DOUBLE,
  charge_uah DOUBLE,
  current_ua DOUBLE,
  voltage_uv DOUBLE,
  energy_counter_uwh DOUBLE,
  power_mw DOUBLE
) AS
WITH moments AS (
  SELECT DISTINCT sample.ts
  FROM counter AS sample
  JOIN counter_track AS battery_track ON battery_track.id = sample.track_id
  WHERE battery_track.name GLOB 'batt.*'
)
SELECT
  moments.ts,
  avg_current.value AS current_avg_ua,
  capacity.value AS capacity_percent,
  charge.value AS charge_uah,
  current_now.value AS current_ua,
  voltage.value AS voltage_uv,
  energy.value AS energy_counter_uwh,
  power.value AS power_mw
FROM moments
LEFT JOIN _android_battery_samples!('batt.current.avg_ua') AS avg_current USING (ts)
LEFT JOIN _android_battery_samples!('batt.capacity_pct') AS capacity USING (ts)
LEFT JOIN _android_battery_samples!('batt.charge_uah') AS charge USING (ts)
LEFT JOIN _android_battery_samples!('batt.current_ua') AS current_now USING (ts)
LEFT JOIN _android_battery_samples!('batt.voltage_uv') AS voltage USING (ts)
LEFT JOIN _android_battery_samples!('batt.energy_counter_uwh') AS energy USING (ts)
LEFT JOIN _android_battery_samples!('batt.power_mw') AS power USING (ts)
ORDER BY moments.ts;
