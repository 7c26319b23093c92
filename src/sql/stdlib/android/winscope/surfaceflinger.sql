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
