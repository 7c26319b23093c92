-- android.version: the Android release of the traced device.

-- The device's SDK level (metadata android_sdk_version), NULL when the trace
-- does not say.
CREATE PERFETTO FUNCTION _android_sdk_version()
RETURNS LONG AS
SELECT int_value FROM metadata
WHERE name = 'android_sdk_version' AND int_value IS NOT NULL
LIMIT 1;
