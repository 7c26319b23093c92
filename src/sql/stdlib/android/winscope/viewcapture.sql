-- android.winscope.viewcapture: the snapshots of the android.viewcapture
-- data source and their views, their fields as args.

-- View capture snapshots.
CREATE PERFETTO VIEW android_viewcapture(
  id LONG,
  ts TIMESTAMP,
  arg_set_id ARGSETID,
  package_name STRING,
  window_name STRING
) AS
SELECT id, ts, arg_set_id, package_name, window_name FROM __intrinsic_viewcapture;

-- The views of each snapshot.
CREATE PERFETTO VIEW android_viewcapture_view(
  id LONG,
  snapshot_id LONG,
  arg_set_id ARGSETID,
  node_id LONG,
  hashcode LONG,
  is_visible LONG,
  parent_id LONG,
  view_id STRING,
  class_name STRING,
  trace_rect_id LONG
) AS
SELECT id, snapshot_id, arg_set_id, node_id, hashcode, is_visible, parent_id, view_id,
  class_name, trace_rect_id
FROM __intrinsic_viewcapture_view;
