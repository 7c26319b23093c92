-- android.startup.startups_maxsdk28: startups of Android 9 and older.
-- Warm and cold starts are system_server's "launching: <package>" slices
-- (their type is found later from the app's slices). Hot starts have no
-- such slice: each "activityResume" slice outside every launch is one,
-- lasting to the end of the first frame that starts after it, its package
-- the resuming process's name. All are numbered from 0 in time order.

INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE android.startup.startup_events;

-- Frames as guessed without a frame timeline (before Android 10): a main
-- thread's "Choreographer#doFrame" slice with the "DrawFrame" slices of its
-- process that start from it until the process's next doFrame (or the
-- trace's end); the frame lasts until the last of those ends. Traces with
-- a frame timeline (actual_frame_timeline_slice rows) get none here.
CREATE PERFETTO TABLE _android_startup_frames_maxsdk28(
  ts TIMESTAMP,
  dur DURATION
) AS
WITH
  do_frames AS (
    SELECT id, ts, upid,
      LEAD(ts, 1, trace_end()) OVER (PARTITION BY upid ORDER BY ts) AS next_ts
    FROM thread_slice
    WHERE is_main_thread = 1 AND name = 'Choreographer#doFrame'
  ),
  draw_frames AS (
    SELECT ts, ts + dur AS ts_end, upid FROM thread_slice WHERE name = 'DrawFrame'
  )
SELECT f.ts, max(d.ts_end) - f.ts AS dur
FROM do_frames AS f
JOIN draw_frames AS d ON d.upid = f.upid AND d.ts >= f.ts AND d.ts < f.next_ts
WHERE NOT EXISTS (SELECT 1 FROM actual_frame_timeline_slice)
GROUP BY f.id
ORDER BY f.ts;

CREATE PERFETTO TABLE _startups_maxsdk28 AS
WITH
  warm_and_cold AS (
    SELECT ts, ts_end, package_name AS package, NULL AS startup_type
    FROM _startup_events
  ),
  resumes AS (
    SELECT
      r.ts,
      (SELECT f.ts + f.dur FROM _android_startup_frames_maxsdk28 AS f
       WHERE f.ts > r.ts ORDER BY f.ts LIMIT 1) AS ts_end,
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
