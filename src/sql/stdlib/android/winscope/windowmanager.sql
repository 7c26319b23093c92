-- android.winscope.windowmanager: the WindowManager trace
-- (android.windowmanager): snapshots and their window containers.

-- Android WindowManager snapshots.
CREATE PERFETTO VIEW android_windowmanager(
  id LONG,
  ts TIMESTAMP,
  arg_set_id ARGSETID,
  base64_proto_id LONG,
  focused_display_id LONG,
  has_invalid_elapsed_ts BOOL
) AS
SELECT id, ts, arg_set_id, base64_proto_id, focused_display_id, has_invalid_elapsed_ts
FROM __intrinsic_windowmanager;

-- Android WindowManager window containers, one row per container of a snapshot.
CREATE PERFETTO VIEW android_windowmanager_windowcontainer(
  id LONG,
  snapshot_id LONG,
  arg_set_id ARGSETID,
  base64_proto_id LONG,
  title STRING,
  token LONG,
  parent_token LONG,
  child_index LONG,
  is_visible BOOL,
  window_rect_id LONG,
  container_type STRING,
  name_override STRING
) AS
SELECT id, snapshot_id, arg_set_id, base64_proto_id, title, token, parent_token, child_index,
  is_visible, window_rect_id, container_type, name_override
FROM __intrinsic_windowmanager_windowcontainer;
