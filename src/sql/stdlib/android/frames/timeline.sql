-- android.frames.timeline: the app frames of the trace.
--
-- weft has no frame timeline (actual_frame_timeline_slice is empty), so the
-- frames are always the ones guessed from the UI and render threads'
-- slices (android.frames.timeline_maxsdk28), as Perfetto does for a trace
-- without a frame timeline.

INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE android.frames.timeline_maxsdk28;

-- Thread slices at depth 0 or 1 whose name matches `pattern`, with the
-- frame id the name carries after its first space (up to the next); names
-- without a non-zero integer there are left out.
CREATE PERFETTO MACRO _android_frame_slices(pattern Expr)
RETURNS TableOrSubquery AS
(
  SELECT id, cast_int!(
      IIF(instr(after, ' ') > 0, substr(after, 1, instr(after, ' ') - 1), after)) AS frame_id,
    utid, upid, ts
  FROM (
    SELECT id, utid, upid, ts,
      IIF(instr(name, ' ') > 0, substr(name, instr(name, ' ') + 1), '') AS after
    FROM thread_slice
    WHERE name GLOB $pattern AND depth IN (0, 1)
  )
  WHERE frame_id != 0
);

-- All of the "Choreographer#doFrame <frame id>" slices with their frame id.
CREATE PERFETTO TABLE android_frames_choreographer_do_frame(
  id ID(slice.id),
  frame_id LONG,
  ui_thread_utid JOINID(thread.id),
  upid JOINID(process.id),
  ts TIMESTAMP
) AS
SELECT id, frame_id, utid AS ui_thread_utid, upid, ts
FROM _android_frame_slices!('Choreographer#doFrame*');

-- All of the "DrawFrame <frame id>" slices with their frame id and render
-- thread.
CREATE PERFETTO TABLE android_frames_draw_frame(
  id ID(slice.id),
  frame_id LONG,
  render_thread_utid JOINID(thread.id),
  upid JOINID(process.id)
) AS
SELECT id, frame_id, utid AS render_thread_utid, upid
FROM _android_frame_slices!('DrawFrame*');

-- The frames, one row per frame and DrawFrame: no frame timeline slices or
-- layers (NULL).
CREATE PERFETTO TABLE android_frames_layers(
  frame_id LONG,
  ts TIMESTAMP,
  dur DURATION,
  ts_end TIMESTAMP,
  do_frame_id JOINID(slice.id),
  draw_frame_id JOINID(slice.id),
  actual_frame_timeline_id JOINID(slice.id),
  expected_frame_timeline_id JOINID(slice.id),
  render_thread_utid JOINID(thread.id),
  ui_thread_utid JOINID(thread.id),
  layer_id LONG,
  layer_name STRING,
  upid JOINID(process.id),
  process_name STRING
) AS
SELECT
  frame_id, ts, dur, ts + dur AS ts_end, do_frame_id, draw_frame_id,
  NULL AS actual_frame_timeline_id, NULL AS expected_frame_timeline_id,
  render_thread_utid, ui_thread_utid, NULL AS layer_id, NULL AS layer_name,
  upid, process_name
FROM _frames_maxsdk_28
ORDER BY frame_id;

-- The frames. Without a frame timeline the counts are what Perfetto gives
-- there: 0 actual and 1 expected timeline slice, 1 DrawFrame per row.
CREATE PERFETTO TABLE android_frames(
  frame_id LONG,
  ts TIMESTAMP,
  dur DURATION,
  do_frame_id JOINID(slice.id),
  draw_frame_id JOINID(slice.id),
  actual_frame_timeline_id JOINID(slice.id),
  expected_frame_timeline_id JOINID(slice.id),
  render_thread_utid JOINID(thread.id),
  ui_thread_utid JOINID(thread.id),
  actual_frame_timeline_count LONG,
  expected_frame_timeline_count LONG,
  draw_frame_count LONG,
  upid JOINID(process.id),
  process_name STRING
) AS
SELECT
  frame_id, ts, dur, do_frame_id, draw_frame_id, actual_frame_timeline_id,
  expected_frame_timeline_id, render_thread_utid, ui_thread_utid,
  0 AS actual_frame_timeline_count, 1 AS expected_frame_timeline_count,
  1 AS draw_frame_count, upid, process_name
FROM android_frames_layers
ORDER BY frame_id;

-- The first frame starting after `ts` (at most one row).
CREATE PERFETTO FUNCTION android_first_frame_after(ts TIMESTAMP)
RETURNS TABLE(
  frame_id LONG,
  ts TIMESTAMP,
  dur DURATION,
  do_frame_id JOINID(slice.id),
  draw_frame_id JOINID(slice.id),
  actual_frame_timeline_id JOINID(slice.id),
  expected_frame_timeline_id JOINID(slice.id),
  render_thread_utid JOINID(thread.id),
  ui_thread_utid JOINID(thread.id)
) AS
SELECT
  frame_id, ts, dur, do_frame_id, draw_frame_id, actual_frame_timeline_id,
  expected_frame_timeline_id, render_thread_utid, ui_thread_utid
FROM android_frames
WHERE ts > $ts
ORDER BY ts, frame_id
LIMIT 1;
