-- android.battery.charging_states: the device's charging state over the
-- trace, from the "BatteryStatus" counter (BatteryManager's status codes).

INCLUDE PERFETTO MODULE counters.intervals;
INCLUDE PERFETTO MODULE intervals.fill_gaps;

-- Device charging states. The trace's time without a BatteryStatus sample
-- (before the first, or all of it) is Unknown.
CREATE PERFETTO TABLE android_charging_states(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  short_charging_state STRING,
  charging_state STRING
) AS
WITH
  status_runs AS (
    SELECT run.ts, run.dur, run.value AS status
    FROM counter_leading_intervals!((
      SELECT sample.id, sample.ts, 0 AS track_id, sample.value
      FROM counter AS sample
      JOIN counter_track AS status_track ON status_track.id = sample.track_id
      WHERE status_track.name = 'BatteryStatus'
    )) AS run
    WHERE run.dur > 0
  ),
  covered AS (
    SELECT ts, dur, status
    FROM _intervals_fill_gaps!((NULL), (status), status_runs)
  )
SELECT
  row_number() OVER (ORDER BY ts) AS id,
  ts,
  dur,
  CASE status
    WHEN 2 THEN 'charging'
    WHEN 3 THEN 'discharging'
    WHEN 4 THEN 'not_charging'
    WHEN 5 THEN 'full'
    ELSE 'unknown'
  END AS short_charging_state,
  CASE status
    WHEN 2 THEN 'Charging'
    WHEN 3 THEN 'Discharging'
    WHEN 4 THEN 'Not charging'
    WHEN 5 THEN 'Full'
    ELSE 'Unknown'
  END AS charging_state
FROM covered
ORDER BY ts;
