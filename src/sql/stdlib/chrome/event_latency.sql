-- chrome.event_latency: Chrome's EventLatency slices (one per input event,
-- from its arrival to the presentation of the frame it changed) with the
-- times of their pipeline stages, and the scroll updates among them.

-- The start of the first slice (in id order) below `parent_id` whose name
-- matches the GLOB pattern `child_name`; NULL if none.
CREATE PERFETTO FUNCTION _chrome_stage_begin(parent_id LONG, child_name STRING)
RETURNS LONG AS
SELECT d.ts
FROM descendant_slice($parent_id) AS d
WHERE d.name GLOB $child_name
ORDER BY d.id
LIMIT 1;

-- The end of that same slice; NULL if none or if it never ended.
CREATE PERFETTO FUNCTION _chrome_stage_end(parent_id LONG, child_name STRING)
RETURNS LONG AS
SELECT IIF(d.dur = -1, NULL, d.ts + d.dur)
FROM descendant_slice($parent_id) AS d
WHERE d.name GLOB $child_name
ORDER BY d.id
LIMIT 1;

-- 1 if a slice below `id` has a name matching the GLOB pattern.
CREATE PERFETTO FUNCTION _chrome_has_stage(id LONG, pattern STRING)
RETURNS BOOL AS
SELECT EXISTS(SELECT 1 FROM descendant_slice($id) AS d WHERE d.name GLOB $pattern);

-- Every EventLatency slice with its typed args and stage times. The frame
-- was presented if a Submit*ToPresentationCompositorFrame stage exists; it
-- was presented at the end of SwapEndToPresentationCompositorFrame, else of
-- a *ToPresentation stage, else of LatchToSwapEnd.
CREATE PERFETTO TABLE chrome_event_latencies(
  id LONG,
  name STRING,
  ts TIMESTAMP,
  dur DURATION,
  scroll_update_id LONG,
  surface_frame_trace_id LONG,
  display_trace_id LONG,
  is_presented BOOL,
  event_type STRING,
  track_id LONG,
  vsync_interval_ms DOUBLE,
  is_janky_scrolled_frame BOOL,
  buffer_available_timestamp LONG,
  buffer_ready_timestamp LONG,
  latch_timestamp LONG,
  swap_end_timestamp LONG,
  presentation_timestamp LONG
) AS
SELECT
  s.id,
  s.name,
  s.ts,
  s.dur,
  extract_arg(s.arg_set_id, 'event_latency.event_latency_id') AS scroll_update_id,
  extract_arg(s.arg_set_id, 'event_latency.surface_frame_trace_id') AS surface_frame_trace_id,
  extract_arg(s.arg_set_id, 'event_latency.display_trace_id') AS display_trace_id,
  _chrome_has_stage(s.id, 'Submit*ToPresentationCompositorFrame') AS is_presented,
  extract_arg(s.arg_set_id, 'event_latency.event_type') AS event_type,
  s.track_id,
  extract_arg(s.arg_set_id, 'event_latency.vsync_interval_ms') AS vsync_interval_ms,
  coalesce(extract_arg(s.arg_set_id, 'event_latency.is_janky_scrolled_frame'), 0)
    AS is_janky_scrolled_frame,
  _chrome_stage_begin(s.id, 'BufferAvailableToBufferReady') AS buffer_available_timestamp,
  _chrome_stage_begin(s.id, 'BufferReadyToLatch') AS buffer_ready_timestamp,
  coalesce(_chrome_stage_begin(s.id, 'LatchToSwapEnd'),
           _chrome_stage_begin(s.id, 'LatchToPresentation')) AS latch_timestamp,
  _chrome_stage_begin(s.id, 'SwapEndToPresentationCompositorFrame') AS swap_end_timestamp,
  coalesce(_chrome_stage_end(s.id, 'SwapEndToPresentationCompositorFrame'),
           _chrome_stage_end(s.id, '*ToPresentation'),
           _chrome_stage_end(s.id, 'LatchToSwapEnd')) AS presentation_timestamp
FROM slice AS s
WHERE s.name = 'EventLatency'
ORDER BY s.id;

-- The scroll updates (plain, first and inertial) and the presented pinch
-- updates, in time order, each with the number of its scroll: a scroll
-- starts at each FIRST_GESTURE_SCROLL_UPDATE and at the first row.
CREATE PERFETTO TABLE chrome_gesture_scroll_updates(
  id LONG,
  name STRING,
  ts TIMESTAMP,
  dur DURATION,
  scroll_update_id LONG,
  is_presented BOOL,
  event_type STRING,
  track_id LONG,
  vsync_interval_ms DOUBLE,
  is_janky BOOL,
  buffer_available_timestamp LONG,
  buffer_ready_timestamp LONG,
  latch_timestamp LONG,
  swap_end_timestamp LONG,
  presentation_timestamp LONG,
  scroll_id LONG
) AS
WITH updates AS (
  SELECT
    *,
    (event_type = 'FIRST_GESTURE_SCROLL_UPDATE'
     OR row_number() OVER (ORDER BY ts) = 1) AS starts_scroll
  FROM chrome_event_latencies
  WHERE event_type IN ('GESTURE_SCROLL_UPDATE', 'FIRST_GESTURE_SCROLL_UPDATE',
                       'INERTIAL_GESTURE_SCROLL_UPDATE')
     OR (event_type GLOB '*GESTURE_PINCH_UPDATE' AND is_presented)
)
SELECT
  id,
  name,
  ts,
  dur,
  scroll_update_id,
  is_presented,
  event_type,
  track_id,
  vsync_interval_ms,
  is_janky_scrolled_frame AS is_janky,
  buffer_available_timestamp,
  buffer_ready_timestamp,
  latch_timestamp,
  swap_end_timestamp,
  presentation_timestamp,
  coalesce(sum(CAST(starts_scroll AS INT)) OVER (
    ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), 0) AS scroll_id
FROM updates;
