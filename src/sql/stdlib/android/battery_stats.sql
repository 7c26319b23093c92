-- android.battery_stats: BatteryStats' history as states and slices. Its
-- states are counters on "battery_stats.<category>" tracks; its events are
-- instants on tracks of the same prefix, named "+key" when something starts
-- and "-key" when it stops (key e.g. `top=10215:"com.example"`).

-- Which categories' values have names, and the list of names they use.
CREATE PERFETTO TABLE _android_battery_stats_track_kind(
  track_name STRING,
  kind STRING
) AS
SELECT column1 AS track_name, column2 AS kind
FROM (VALUES
  ('battery_stats.wifi_scan', 'activity'), ('battery_stats.wifi_radio', 'activity'),
  ('battery_stats.mobile_radio', 'activity'), ('battery_stats.audio', 'activity'),
  ('battery_stats.video', 'activity'), ('battery_stats.camera', 'activity'),
  ('battery_stats.power_save', 'activity'), ('battery_stats.phone_in_call', 'activity'),
  ('battery_stats.wifi', 'switch'),
  ('battery_stats.phone_state', 'phone'),
  ('battery_stats.phone_signal_strength', 'signal'),
  ('battery_stats.wifi_signal_strength', 'signal'),
  ('battery_stats.wifi_suppl', 'supplicant'),
  ('battery_stats.data_conn', 'network'));

-- The name of each code of each kind.
CREATE PERFETTO TABLE _android_battery_stats_value_name(
  kind STRING,
  code LONG,
  value_name STRING
) AS
SELECT column1 AS kind, column2 AS code, column3 AS value_name
FROM (VALUES
  ('activity', 0, 'inactive'), ('activity', 1, 'active'),
  ('switch', 0, 'off'), ('switch', 1, 'on'),
  ('phone', 0, 'in'), ('phone', 1, 'out'), ('phone', 2, 'emergency'), ('phone', 3, 'off'),
  ('signal', 0, '0/4'), ('signal', 1, '1/4'), ('signal', 2, '2/4'), ('signal', 3, '3/4'),
  ('signal', 4, '4/4'),
  ('supplicant', 0, 'invalid'), ('supplicant', 1, 'disconnected'),
  ('supplicant', 2, 'disabled'), ('supplicant', 3, 'inactive'),
  ('supplicant', 4, 'scanning'), ('supplicant', 5, 'authenticating'),
  ('supplicant', 6, 'associating'), ('supplicant', 7, 'associated'),
  ('supplicant', 8, '4-way-handshake'), ('supplicant', 9, 'group-handshake'),
  ('supplicant', 10, 'completed'), ('supplicant', 11, 'dormant'),
  ('supplicant', 12, 'uninitialized'),
  ('network', 0, 'Out of service'), ('network', 1, '2.5G (GPRS)'),
  ('network', 2, '2.7G (EDGE)'), ('network', 3, '3G (UMTS)'),
  ('network', 4, '3G (CDMA)'), ('network', 5, '3G (EVDO Rel 0)'),
  ('network', 6, '3G (EVDO Rev A)'), ('network', 7, '3G (LXRTT)'),
  ('network', 8, '3.5G (HSDPA)'), ('network', 9, '3.5G (HSUPA)'),
  ('network', 10, '3.5G (HSPA)'), ('network', 11, '2G (IDEN)'),
  ('network', 12, '3G (EVDO Rev B)'), ('network', 13, '4G (LTE)'),
  ('network', 14, '3.5G (eHRPD)'), ('network', 15, '3.7G (HSPA+)'),
  ('network', 16, '2G (GSM)'), ('network', 17, '3G (TD SCDMA)'),
  ('network', 18, 'Wifi calling (IWLAN)'), ('network', 19, '4.5G (LTE CA)'),
  ('network', 20, '5G (NR)'), ('network', 21, 'Emergency calls only'),
  ('network', 22, 'Other'));

-- The human-readable name of `value` on the battery_stats counter `track`:
-- a named category's name for the code ('unknown' for a code it does not
-- name), any other category's value as text.
CREATE PERFETTO FUNCTION android_battery_stats_counter_to_string(
  track STRING,
  value DOUBLE
)
RETURNS STRING AS
SELECT CASE
  WHEN kind.kind IS NULL THEN CAST($value AS TEXT)
  ELSE coalesce(
    (SELECT named.value_name FROM _android_battery_stats_value_name AS named
     WHERE named.kind = kind.kind AND named.code = $value),
    'unknown')
END
FROM (SELECT 1) AS one
LEFT JOIN _android_battery_stats_track_kind AS kind ON kind.track_name = $track;

-- Battery stats states: each sample of a "battery_stats.*" counter lasts
-- until the next one of its track (dur -1 for a track's last, whose
-- safe_dur reaches the trace's end).
CREATE PERFETTO VIEW android_battery_stats_state(
  ts TIMESTAMP,
  dur DURATION,
  safe_dur DURATION,
  track_name STRING,
  value LONG,
  value_name STRING
) AS
SELECT
  sample.ts,
  coalesce(lead(sample.ts) OVER by_track - sample.ts, -1) AS dur,
  coalesce(lead(sample.ts) OVER by_track, trace_end()) - sample.ts AS safe_dur,
  stats_track.name AS track_name,
  CAST(sample.value AS INT) AS value,
  android_battery_stats_counter_to_string(stats_track.name, sample.value) AS value_name
FROM counter AS sample
JOIN counter_track AS stats_track ON stats_track.id = sample.track_id
WHERE stats_track.name GLOB 'battery_stats.*'
WINDOW by_track AS (PARTITION BY stats_track.name ORDER BY sample.ts)
ORDER BY stats_track.name, sample.ts;

-- Battery stats event slices: a "+key" instant starts a slice that the next
-- instant of the same track and key (whatever its sign) ends; dur -1 when
-- none follows, safe_dur then reaching the trace's end. A "-key" instant
-- that is the first of its track and key ends a slice from the trace's
-- start. key is the text after the first '='; str_value its part between
-- the first and second '"', int_value its part before the first ':'.
CREATE PERFETTO VIEW android_battery_stats_event_slices(
  ts TIMESTAMP,
  dur DURATION,
  safe_dur DURATION,
  track_name STRING,
  str_value STRING,
  int_value LONG
) AS
WITH
  markers AS (
    SELECT
      event.ts,
      event_track.name AS track_name,
      str_split(event.name, '=', 1) AS key,
      substr(event.name, 1, 1) = '+' AS is_start
    FROM slice AS event
    JOIN track AS event_track ON event_track.id = event.track_id
    WHERE event_track.name GLOB 'battery_stats.*'
      AND substr(event.name, 1, 1) IN ('+', '-')
  ),
  sequenced AS (
    SELECT
      markers.*,
      lag(ts) OVER by_key IS NULL AS is_first,
      lead(ts) OVER by_key AS next_ts
    FROM markers
    WINDOW by_key AS (PARTITION BY track_name, key ORDER BY ts)
  ),
  spans AS (
    SELECT track_name, key,
      iif(is_start, ts, trace_start()) AS ts,
      iif(is_start, next_ts, ts) AS end_ts
    FROM sequenced
    WHERE is_start OR is_first
  )
SELECT
  ts,
  coalesce(end_ts - ts, -1) AS dur,
  coalesce(end_ts, trace_end()) - ts AS safe_dur,
  track_name,
  str_split(key, '"', 1) AS str_value,
  CAST(str_split(key, ':', 0) AS INT) AS int_value
FROM spans
ORDER BY track_name, key, ts;
