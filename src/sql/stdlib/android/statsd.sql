-- android.statsd: statsd atoms, the instant slices of the track "Statsd
-- Atoms".

-- Statsd atoms.
--
-- A subset of the slice table containing statsd atom instant events.
CREATE PERFETTO VIEW android_statsd_atoms(
  -- Unique identifier for this slice.
  id LONG,
  -- The timestamp at the start of the slice.
  ts TIMESTAMP,
  -- The duration of the slice.
  dur DURATION,
  -- The id of the argument set associated with this slice.
  arg_set_id ARGSETID,
  -- The value of the CPU instruction counter at the start of the slice.
  thread_instruction_count LONG,
  -- The change in value of the CPU instruction counter over the slice.
  thread_instruction_delta LONG,
  -- The id of the track this slice is located on.
  track_id JOINID(track.id),
  -- The "category" of the slice.
  category STRING,
  -- The name of the slice.
  name STRING,
  -- The depth of the slice in the current stack of slices.
  depth LONG,
  -- The id of the parent (i.e. immediate ancestor) slice for this slice.
  parent_id LONG,
  -- The thread timestamp at the start of the slice.
  thread_ts TIMESTAMP,
  -- The thread time used by this slice.
  thread_dur LONG
) AS
SELECT
  s.id, s.ts, s.dur, s.arg_set_id, s.thread_instruction_count, s.thread_instruction_delta,
  s.track_id, s.category, s.name, s.depth, s.parent_id, s.thread_ts, s.thread_dur
FROM slice AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.name = 'Statsd Atoms';
