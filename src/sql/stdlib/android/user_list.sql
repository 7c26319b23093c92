-- android.user_list: the Android users the android.user_list data source
-- listed (Android users, not Linux uids).

-- One row per Android user.
CREATE PERFETTO VIEW android_user_list(
  -- The Android user id.
  android_user_id LONG,
  -- The user's type as the system names it (e.g. a full secondary user).
  type STRING
) AS
SELECT android_user_id, type FROM __intrinsic_android_user_list;
