-- android.frames.per_frame_metrics: per frame timings built on
-- android.frames.timeline (frames, their doFrame and DrawFrame slices) and
-- the frame timeline's expected and actual slices.

INCLUDE PERFETTO MODULE time.conversion;
INCLUDE PERFETTO MODULE android.frames.timeline;

-- Per frame id (a timeline slice's name): the first actual or expected
-- timeline slice (the same frame repeats on several tracks).
CREATE PERFETTO MACRO _android_timeline_first_slice(timeline TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT CAST(name AS INT) AS frame_id, min(id) AS id
  FROM $timeline
  GROUP BY CAST(name AS INT)
);

-- How far each frame ended past its deadline: the end of its actual
-- timeline slice minus the end of its expected one (negative when early).
CREATE PERFETTO TABLE android_frames_overrun(
  frame_id LONG,
  overrun LONG
) AS
SELECT
  actual.frame_id,
  (actual_slice.ts + actual_slice.dur) - (expected_slice.ts + expected_slice.dur) AS overrun
FROM _android_timeline_first_slice!(actual_frame_timeline_slice) AS actual
JOIN _android_timeline_first_slice!(expected_frame_timeline_slice) AS expected
  USING (frame_id)
JOIN slice AS actual_slice ON actual_slice.id = actual.id
JOIN slice AS expected_slice ON expected_slice.id = expected.id
ORDER BY actual.frame_id;

-- The duration of each frame's Choreographer#doFrame slice.
CREATE PERFETTO TABLE android_frames_ui_time(
  frame_id LONG,
  ui_time LONG
) AS
SELECT do_frame.frame_id, do_frame_slice.dur AS ui_time
FROM android_frames_choreographer_do_frame AS do_frame
JOIN slice AS do_frame_slice ON do_frame_slice.id = do_frame.id;

-- One row per frame id with a Choreographer#doFrame and a DrawFrame in one
-- process (the frames android_frames keeps when the trace has a frame
-- timeline): its first doFrame and first actual and expected timeline
-- slices (NULL without them).
CREATE PERFETTO TABLE _android_frames_one_per_id(
  frame_id LONG,
  do_frame_id LONG,
  actual_frame_timeline_id LONG,
  expected_frame_timeline_id LONG
) AS
SELECT
  do_frame.frame_id,
  min(do_frame.id) AS do_frame_id,
  actual.id AS actual_frame_timeline_id,
  expected.id AS expected_frame_timeline_id
FROM android_frames_choreographer_do_frame AS do_frame
JOIN android_frames_draw_frame AS draw_frame USING (frame_id, upid)
LEFT JOIN _android_timeline_first_slice!(actual_frame_timeline_slice) AS actual
  USING (frame_id)
LEFT JOIN _android_timeline_first_slice!(expected_frame_timeline_slice) AS expected
  USING (frame_id)
GROUP BY do_frame.frame_id;

-- The time from the frame's expected start (VSYNC-app) to its actual
-- start, for frames with both timeline slices.
CREATE PERFETTO TABLE android_app_vsync_delay_per_frame(
  frame_id LONG,
  app_vsync_delay LONG
) AS
SELECT frame.frame_id, actual_slice.ts - expected_slice.ts AS app_vsync_delay
FROM _android_frames_one_per_id AS frame
JOIN slice AS expected_slice ON expected_slice.id = frame.expected_frame_timeline_id
JOIN slice AS actual_slice ON actual_slice.id = frame.actual_frame_timeline_id;

-- CPU time of a frame on the UI and render threads: its vsync delay, its
-- doFrame and the sum of its DrawFrames.
CREATE PERFETTO TABLE android_cpu_time_per_frame(
  frame_id LONG,
  app_vsync_delay LONG,
  do_frame_dur DURATION,
  draw_frame_dur DURATION,
  cpu_time LONG
) AS
WITH draw_time AS (
  SELECT draw_frame.frame_id, sum(draw_slice.dur) AS draw_frame_dur
  FROM android_frames_draw_frame AS draw_frame
  JOIN slice AS draw_slice ON draw_slice.id = draw_frame.id
  GROUP BY draw_frame.frame_id
)
SELECT
  delay.frame_id,
  delay.app_vsync_delay,
  do_frame_slice.dur AS do_frame_dur,
  draw_time.draw_frame_dur,
  delay.app_vsync_delay + do_frame_slice.dur + draw_time.draw_frame_dur AS cpu_time
FROM android_app_vsync_delay_per_frame AS delay
JOIN draw_time USING (frame_id)
JOIN _android_frames_one_per_id AS frame USING (frame_id)
JOIN slice AS do_frame_slice ON do_frame_slice.id = frame.do_frame_id;

-- A frame's cpu time, or without one its ui time + 5 ms.
CREATE PERFETTO TABLE _android_estimated_cpu_time_per_frame(
  frame_id LONG,
  cpu_time LONG
) AS
SELECT
  ui.frame_id,
  coalesce(measured.cpu_time, ui.ui_time + time_from_ms(5)) AS cpu_time
FROM android_frames_ui_time AS ui
LEFT JOIN android_cpu_time_per_frame AS measured USING (frame_id);

-- Per frame with an overrun: the overrun, cpu and ui times and whether it
-- was janky (overrun > 0), slow (cpu > 20 ms), a big (> 50 ms) or a huge
-- (> 200 ms) jank; each flag 1 or NULL.
CREATE PERFETTO TABLE android_frame_stats(
  frame_id LONG,
  overrun LONG,
  cpu_time LONG,
  ui_time LONG,
  was_jank BOOL,
  was_slow_frame BOOL,
  was_big_jank BOOL,
  was_huge_jank BOOL
) AS
SELECT
  frame_id,
  overrun,
  cpu_time,
  ui_time,
  iif(overrun > 0, 1, NULL) AS was_jank,
  iif(cpu_time > time_from_ms(20), 1, NULL) AS was_slow_frame,
  iif(cpu_time > time_from_ms(50), 1, NULL) AS was_big_jank,
  iif(cpu_time > time_from_ms(200), 1, NULL) AS was_huge_jank
FROM android_frames_overrun
JOIN android_frames_ui_time USING (frame_id)
JOIN _android_estimated_cpu_time_per_frame USING (frame_id);
