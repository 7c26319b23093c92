-- slices.with_context: slices joined with the thread / process they belong
-- to. A thread slice is one on a thread-scoped track (its thread may have no
-- process yet); a process slice is one on a process-scoped track.

CREATE PERFETTO VIEW thread_slice(
  id ID(slice.id),
  ts TIMESTAMP,
  dur DURATION,
  category STRING,
  name STRING,
  track_id JOINID(track.id),
  track_name STRING,
  thread_name STRING,
  utid JOINID(thread.id),
  tid LONG,
  is_main_thread BOOL,
  process_name STRING,
  upid JOINID(process.id),
  pid LONG,
  depth LONG,
  parent_id JOINID(slice.id),
  arg_set_id ARGSETID,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT s.id, s.ts, s.dur, s.category, s.name, s.track_id,
  tt.name AS track_name, t.name AS thread_name, t.utid, t.tid,
  t.is_main_thread, p.name AS process_name, p.upid, p.pid, s.depth,
  s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM slice s
JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t ON t.utid = tt.utid
LEFT JOIN process p ON p.upid = t.upid;

CREATE PERFETTO VIEW process_slice(
  id ID(slice.id),
  ts TIMESTAMP,
  dur DURATION,
  category STRING,
  name STRING,
  track_id JOINID(track.id),
  track_name STRING,
  process_name STRING,
  upid JOINID(process.id),
  pid LONG,
  depth LONG,
  parent_id JOINID(slice.id),
  arg_set_id ARGSETID,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
SELECT s.id, s.ts, s.dur, s.category, s.name, s.track_id,
  pt.name AS track_name, p.name AS process_name, p.upid, p.pid, s.depth,
  s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM slice s
JOIN process_track pt ON s.track_id = pt.id
JOIN process p ON p.upid = pt.upid;

-- Thread slices first, then process slices; thread columns are NULL for the
-- latter.
CREATE PERFETTO VIEW thread_or_process_slice(
  id JOINID(slice.id),
  ts TIMESTAMP,
  dur DURATION,
  category STRING,
  name STRING,
  track_id JOINID(track.id),
  track_name STRING,
  thread_name STRING,
  utid JOINID(thread.id),
  tid LONG,
  process_name STRING,
  upid JOINID(process.id),
  pid LONG,
  depth LONG,
  parent_id JOINID(slice.id),
  arg_set_id ARGSETID
) AS
SELECT id, ts, dur, category, name, track_id, track_name, thread_name, utid,
  tid, process_name, upid, pid, depth, parent_id, arg_set_id
FROM thread_slice
UNION ALL
SELECT id, ts, dur, category, name, track_id, track_name, NULL, NULL, NULL,
  process_name, upid, pid, depth, parent_id, arg_set_id
FROM process_slice;
