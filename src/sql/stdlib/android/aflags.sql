-- android.aflags: snapshots of the Android aconfig flags (android.aflags
-- data source), one row per flag and snapshot.

-- The flags' state at each snapshot.
CREATE PERFETTO VIEW android_aflags(
  ts TIMESTAMP,
  package STRING,
  name STRING,
  flag_namespace STRING,
  container STRING,
  value STRING,
  staged_value STRING,
  permission STRING,
  value_picked_from STRING,
  storage_backend STRING,
  type STRING
) AS
SELECT ts, package, name, flag_namespace, container, value, staged_value, permission,
  value_picked_from, storage_backend, type
FROM __intrinsic_android_aflags;
