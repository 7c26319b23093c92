-- android.frames.timeline_maxsdk28: frames guessed from the UI and render
-- threads' slices, for traces without a frame timeline (before Android 10).

INCLUDE PERFETTO MODULE slices.with_context;

-- One row per "Choreographer#doFrame" slice of a main thread and "DrawFrame"
-- slice of the same process starting from it until the process's next
-- doFrame (or the trace's end). The frame lasts until the last of its
-- DrawFrames ends; frame ids count from 1 in (doFrame ts, DrawFrame) order.
CREATE PERFETTO TABLE _frames_maxsdk_28(
  frame_id LONG,
  ts TIMESTAMP,
  dur DURATION,
  do_frame_id JOINID(slice.id),
  draw_frame_id JOINID(slice.id),
  render_thread_utid JOINID(thread.id),
  ui_thread_utid JOINID(thread.id),
  sdk STRING,
  upid JOINID(process.id),
  process_name STRING
) AS
WITH
  do_frames AS (
    SELECT id, ts, utid, upid, process_name,
      LEAD(ts, 1, trace_end()) OVER (PARTITION BY upid ORDER BY ts) AS next_ts
    FROM thread_slice
    WHERE is_main_thread = 1 AND name = 'Choreographer#doFrame'
  ),
  draw_frames AS (
    SELECT id, ts, ts + dur AS ts_end, utid, upid
    FROM thread_slice
    WHERE name = 'DrawFrame'
  ),
  pairs AS (
    SELECT
      f.id AS do_frame_id, f.ts, f.utid AS ui_thread_utid, f.upid, f.process_name,
      d.id AS draw_frame_id, d.ts AS draw_ts, d.utid AS render_thread_utid,
      max(d.ts_end) OVER (PARTITION BY f.id) - f.ts AS dur
    FROM do_frames AS f
    JOIN draw_frames AS d ON d.upid = f.upid AND d.ts >= f.ts AND d.ts < f.next_ts
  )
SELECT
  ROW_NUMBER() OVER (ORDER BY ts, draw_ts, draw_frame_id) AS frame_id,
  ts,
  dur,
  do_frame_id,
  draw_frame_id,
  render_thread_utid,
  ui_thread_utid,
  'maxsdk28' AS sdk,
  upid,
  process_name
FROM pairs
ORDER BY frame_id;
