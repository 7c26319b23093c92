-- chrome.scroll_jank.utils: helpers shared by the scroll jank modules.

-- Whether a frame is janky against a neighbour of the same gesture: the
-- neighbour must belong to the gesture and lie within its span, and the
-- frame must last more than half a vsync longer than it (frame lengths in
-- vsyncs; 1e-9 absorbs rounding at exactly half).
CREATE PERFETTO FUNCTION _chrome_is_janky_frame(
  cur_gesture_id LONG,
  neighbour_gesture_id LONG,
  neighbour_ts TIMESTAMP,
  cur_gesture_begin_ts TIMESTAMP,
  cur_gesture_end_ts TIMESTAMP,
  cur_frame_exact DOUBLE,
  neighbour_frame_exact DOUBLE
)
RETURNS BOOL AS
SELECT CASE
  WHEN $cur_gesture_id != $neighbour_gesture_id
    OR $neighbour_ts IS NULL
    OR $neighbour_ts < $cur_gesture_begin_ts
    OR $neighbour_ts > $cur_gesture_end_ts THEN FALSE
  ELSE $cur_frame_exact > $neighbour_frame_exact + 0.5 + 1e-9
END;

-- How many vsyncs a frame would have to lose to stop being janky: its
-- excess over the larger of its neighbours' lengths (either one when the
-- other is missing), less half a vsync and 1e-9.
CREATE PERFETTO FUNCTION _chrome_jank_budget(
  cur_frame_exact DOUBLE,
  prev_frame_exact DOUBLE,
  next_frame_exact DOUBLE
)
RETURNS DOUBLE AS
SELECT coalesce(
  max($cur_frame_exact - $prev_frame_exact, $cur_frame_exact - $next_frame_exact),
  $cur_frame_exact - $prev_frame_exact,
  $cur_frame_exact - $next_frame_exact) - 0.5 - 1e-9;

-- The long-task slices (category containing "scheduler.long_tasks") of a
-- name, with the mojo message each ran: its interface, hash and whether it
-- was a reply.
CREATE PERFETTO FUNCTION chrome_select_long_task_slices(name STRING)
RETURNS TABLE(
  interface_name STRING,
  ipc_hash LONG,
  message_type STRING,
  id LONG
) AS
SELECT
  extract_arg(s.arg_set_id, 'chrome_mojo_event_info.mojo_interface_tag') AS interface_name,
  extract_arg(s.arg_set_id, 'chrome_mojo_event_info.ipc_hash') AS ipc_hash,
  IIF(extract_arg(s.arg_set_id, 'chrome_mojo_event_info.is_reply'), 'reply', 'message')
    AS message_type,
  s.id
FROM slice AS s
WHERE s.category GLOB '*scheduler.long_tasks*' AND s.name = $name;
