-- android.device: the device's code name, from its build fingerprint.

-- Extracts the device code name from an Android build fingerprint: the
-- third '/'-separated field up to its ':' ("Android/aosp_raven/raven:15/..."
-- is "raven").
CREATE PERFETTO FUNCTION android_device_name_from_fingerprint(
  -- Android build fingerprint.
  fingerprint STRING
)
-- Device code name (e.g. 'raven').
RETURNS STRING AS
SELECT str_split(str_split($fingerprint, '/', 2), ':', 0);

-- Extract name of the device based on metadata from the trace: one row per
-- machine whose build fingerprint is known.
CREATE PERFETTO TABLE android_device_name(
  -- Device name.
  name STRING,
  -- Machine identifier
  machine_id JOINID(machine.id)
) AS
SELECT android_device_name_from_fingerprint(android_build_fingerprint) AS name, id AS machine_id
FROM machine
WHERE android_build_fingerprint IS NOT NULL;
