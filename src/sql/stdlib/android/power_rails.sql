-- Power rails: one row per power rail counter track (the importer names a
-- well-known rail "power.rails.<friendly name>", any other "power.<raw>_uws",
-- and keeps the hardware's raw name and subsystem as the track's source args).
CREATE PERFETTO TABLE android_power_rails_metadata(
  power_rail_name STRING,
  raw_power_rail_name STRING,
  friendly_name STRING,
  track_id JOINID(track.id),
  subsystem_name STRING,
  machine_id JOINID(machine.id)
) AS
SELECT
  rail.name AS power_rail_name,
  extract_arg(rail.source_arg_set_id, 'raw_name') AS raw_power_rail_name,
  IIF(rail.name GLOB 'power.rails.*', substr(rail.name, length('power.rails.') + 1), NULL)
    AS friendly_name,
  rail.id AS track_id,
  extract_arg(rail.source_arg_set_id, 'subsystem_name') AS subsystem_name,
  rail.machine_id AS machine_id
FROM track AS rail
WHERE rail.type = 'power_rails';
