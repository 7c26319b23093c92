-- android.startup.startups_minsdk33: startups of Android 13+ (T), marked by
-- system_server's "launchingActivity#<id>" async slice (the startup's span)
-- and a zero-length "launchingActivity#<id>:completed[-<type>]:<package>"
-- slice naming its package and type.

INCLUDE PERFETTO MODULE android.startup.startup_events;

-- The spans: "launchingActivity#<id>" slices of positive length.
CREATE PERFETTO VIEW _startup_async_events AS
SELECT
  ts,
  dur,
  cast(substr(name, length('launchingActivity#') + 1) AS INT) AS startup_id
FROM slice
WHERE name GLOB 'launchingActivity#*' AND dur > 0 AND instr(name, ':') = 0;

-- The completions: "<id>:<kind>:<package>" after the '#', split on ':';
-- kind completed-hot/-warm/-cold gives the type (any other kind none);
-- "completed-same-process" ones are not startups. Equal completions are one.
CREATE PERFETTO VIEW _startup_complete_events AS
WITH fields AS (
  SELECT ts, substr(name, length('launchingActivity#') + 1) AS rest
  FROM slice
  WHERE dur = 0
    AND name GLOB 'launchingActivity#*:completed*:*'
    AND NOT name GLOB '*:completed-same-process:*'
),
split AS (
  SELECT
    ts,
    substr(rest, 1, instr(rest, ':') - 1) AS id_text,
    substr(rest, instr(rest, ':') + 1) AS after_id
  FROM fields
),
parts AS (
  SELECT
    ts,
    id_text,
    substr(after_id, 1, instr(after_id, ':') - 1) AS kind,
    substr(after_id, instr(after_id, ':') + 1) AS after_kind
  FROM split
)
SELECT
  cast(id_text AS INT) AS startup_id,
  IIF(instr(after_kind, ':') > 0, substr(after_kind, 1, instr(after_kind, ':') - 1),
      after_kind) AS package_name,
  CASE kind
    WHEN 'completed-hot' THEN 'hot'
    WHEN 'completed-warm' THEN 'warm'
    WHEN 'completed-cold' THEN 'cold'
  END AS startup_type,
  min(ts) AS ts
FROM parts
GROUP BY 1, 2, 3;

-- A startup per span and completion of the same id.
CREATE PERFETTO TABLE _startups_minsdk33 AS
SELECT
  a.startup_id,
  a.ts,
  a.ts + a.dur AS ts_end,
  a.dur,
  c.package_name AS package,
  c.startup_type
FROM _startup_async_events AS a
JOIN _startup_complete_events AS c USING (startup_id);
