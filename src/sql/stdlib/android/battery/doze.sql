-- android.battery.doze: the DeviceIdleController's two state machines, from
-- the "DozeLightState" and "DozeDeepState" counters. Each row is a counter
-- sample (its id) lasting to the next kept sample of its track.

INCLUDE PERFETTO MODULE counters.intervals;

-- The intervals of the counter track named `track_name`.
CREATE PERFETTO MACRO _android_doze_intervals(track_name Expr)
RETURNS TableOrSubquery AS
(
  SELECT run.id, run.ts, run.dur, run.value AS state
  FROM counter_leading_intervals!((
    SELECT sample.id, sample.ts, 0 AS track_id, sample.value
    FROM counter AS sample
    JOIN counter_track AS doze_track ON doze_track.id = sample.track_id
    WHERE doze_track.name = $track_name
  )) AS run
);

-- Light idle states: the quick detection that the device is unused.
CREATE PERFETTO TABLE android_light_idle_state(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  light_idle_state STRING
) AS
SELECT
  id,
  ts,
  dur,
  CASE state
    WHEN 0 THEN 'active'
    WHEN 1 THEN 'inactive'
    WHEN 4 THEN 'idle'
    WHEN 5 THEN 'waiting_for_network'
    WHEN 6 THEN 'idle_maintenance'
    WHEN 7 THEN 'override'
    ELSE 'unmapped'
  END AS light_idle_state
FROM _android_doze_intervals!('DozeLightState')
ORDER BY ts;

-- Deep idle states: the slower detection of deeper unuse.
CREATE PERFETTO TABLE android_deep_idle_state(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  deep_idle_state STRING
) AS
SELECT
  id,
  ts,
  dur,
  CASE state
    WHEN 0 THEN 'active'
    WHEN 1 THEN 'inactive'
    WHEN 2 THEN 'idle_pending'
    WHEN 3 THEN 'sensing'
    WHEN 4 THEN 'locating'
    WHEN 5 THEN 'idle'
    WHEN 6 THEN 'idle_maintenance'
    WHEN 7 THEN 'quick_doze_delay'
    ELSE 'unmapped'
  END AS deep_idle_state
FROM _android_doze_intervals!('DozeDeepState')
ORDER BY ts;
