-- android.startup.startups_maxsdk28: startups of Android 9 and older.
-- Warm and cold starts are system_server's "launching: <package>" slices
-- (their type is found later from the app's slices). Hot starts have no
-- such slice: each "activityResume" slice outside every launch is one,
-- lasting to the end of the first frame that starts after it (of any
-- process; android.frames.timeline), its package the resuming process's
-- name. All are numbered from 0 in time order.

INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE android.startup.startup_events;
INCLUDE PERFETTO MODULE android.frames.timeline;

CREATE PERFETTO TABLE _startups_maxsdk28 AS
WITH
  warm_and_cold AS (
    SELECT ts, ts_end, package_name AS package, NULL AS startup_type
    FROM _startup_events
  ),
  resumes AS (
    SELECT
      r.ts,
      (SELECT f.ts + f.dur FROM android_first_frame_after(r.ts) AS f) AS ts_end,
      r.process_name AS package
    FROM thread_slice AS r
    WHERE r.name = 'activityResume'
      AND NOT EXISTS (
        SELECT 1 FROM _startup_events AS e WHERE r.ts >= e.ts AND r.ts <= e.ts_end
      )
  ),
  all_starts AS (
    SELECT * FROM warm_and_cold
    UNION ALL
    SELECT ts, ts_end, package, 'hot' FROM resumes WHERE ts_end IS NOT NULL
  )
SELECT
  ROW_NUMBER() OVER (ORDER BY ts) - 1 AS startup_id,
  ts,
  ts_end,
  ts_end - ts AS dur,
  package,
  startup_type
FROM all_starts;
