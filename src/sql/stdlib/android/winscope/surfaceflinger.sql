-- android.winscope.surfaceflinger: the SurfaceFlinger transactions and
-- layers traces (android.surfaceflinger.transactions / .layers).

-- Android surfaceflinger transactions: one row per change of an entry.
CREATE PERFETTO VIEW android_surfaceflinger_transaction(
  id LONG,
  snapshot_id LONG,
  arg_set_id LONG,
  transaction_id LONG,
  pid LONG,
  uid LONG,
  layer_id LONG,
  display_id LONG,
  flags_id LONG,
  transaction_type STRING
) AS
SELECT id, snapshot_id, arg_set_id, transaction_id, pid, uid, layer_id, display_id, flags_id,
  transaction_type
FROM __intrinsic_surfaceflinger_transaction;

-- Android surfaceflinger transaction flags: the names of each flags_id's set bits.
CREATE PERFETTO VIEW android_surfaceflinger_transaction_flag(flags_id LONG, flag STRING) AS
SELECT flags_id, flag FROM __intrinsic_surfaceflinger_transaction_flag;

-- Android surfaceflinger displays (from android.surfaceflinger.layers data source).
CREATE PERFETTO VIEW android_surfaceflinger_display(
  id LONG,
  snapshot_id LONG,
  is_on LONG,
  is_virtual LONG,
  trace_rect_id LONG,
  display_id LONG,
  display_name STRING
) AS
SELECT id, snapshot_id, is_on, is_virtual, trace_rect_id, display_id, display_name
FROM __intrinsic_surfaceflinger_display;

-- Android surfaceflinger input rect fill regions (from android.surfaceflinger.layers
-- data source).
CREATE PERFETTO VIEW android_winscope_fill_region(id LONG, trace_rect_id LONG, rect_id LONG) AS
SELECT id, trace_rect_id, rect_id FROM __intrinsic_winscope_fill_region;
