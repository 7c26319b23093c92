-- android.entity_state_residency: the power HAL's per entity and state
-- residency counters ("Entity residency: <entity> is <state>" tracks of type
-- entity_state, valued in ms spent in the state since boot, which Perfetto
-- makes from TracePacket.entity_state_residency; weft does not import that
-- packet yet, so the table is empty).

-- Each residency sample, lasting until the next of its track (dur NULL for
-- the last), with the share of that time the entity spent in the state.
CREATE PERFETTO TABLE android_entity_state_residency(
  id ID(counter.id),
  ts TIMESTAMP,
  dur DURATION,
  entity_name STRING,
  state_name STRING,
  raw_name STRING,
  state_time_since_boot DURATION,
  state_time_since_boot_at_end DURATION,
  state_time_ratio DOUBLE,
  track_id JOINID(track.id)
) AS
WITH
  residency_track AS (
    SELECT
      id,
      name AS raw_name,
      name GLOB 'Entity residency: *' AND name GLOB '* is *' AS is_named,
      instr(name, ' is ') AS is_at
    FROM counter_track
    WHERE type = 'entity_state'
  ),
  samples AS (
    SELECT
      sample.id,
      sample.ts,
      lead(sample.ts) OVER by_track - sample.ts AS dur,
      iif(is_named, replace(substr(raw_name, 1, is_at - 1), 'Entity residency: ', ''), NULL)
        AS entity_name,
      iif(is_named, substr(raw_name, is_at + length(' is ')), NULL) AS state_name,
      raw_name,
      CAST(sample.value * 1e6 AS INT) AS state_time_since_boot,
      CAST(lead(sample.value) OVER by_track * 1e6 AS INT) AS state_time_since_boot_at_end,
      sample.track_id
    FROM counter AS sample
    JOIN residency_track ON residency_track.id = sample.track_id
    WINDOW by_track AS (PARTITION BY sample.track_id ORDER BY sample.ts)
  )
SELECT
  id,
  ts,
  dur,
  entity_name,
  state_name,
  raw_name,
  state_time_since_boot,
  state_time_since_boot_at_end,
  (state_time_since_boot_at_end - state_time_since_boot) * 1.0 / dur AS state_time_ratio,
  track_id
FROM samples
ORDER BY track_id, ts;
