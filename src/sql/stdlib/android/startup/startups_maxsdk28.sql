-- android.startup.startups_maxsdk28: startups of Android 9 and older, where
-- only system_server's "launching: <package>" slices mark them (warm and
-- cold starts; their type is found later from the app's slices), numbered
-- from 0 in time order. Hot starts, which Perfetto finds from the first
-- frame after an activityResume (android.frames.timeline), are not found.

INCLUDE PERFETTO MODULE android.startup.startup_events;

CREATE PERFETTO TABLE _startups_maxsdk28 AS
SELECT
  ROW_NUMBER() OVER (ORDER BY ts) - 1 AS startup_id,
  ts,
  ts_end,
  ts_end - ts AS dur,
  package_name AS package,
  NULL AS startup_type
FROM _startup_events;
