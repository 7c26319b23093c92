-- android.startup.time_to_display: how long each startup took to show its
-- first frame (TTID) and its full content (TTFD, after the app's
-- reportFullyDrawn).

INCLUDE PERFETTO MODULE android.startup.startups;
INCLUDE PERFETTO MODULE android.frames.timeline;
INCLUDE PERFETTO MODULE slices.with_context;

-- Each startup with its process: the one that handled it, else one whose
-- name matches the package (as a GLOB).
CREATE PERFETTO VIEW _startups_with_upid AS
WITH
  handled AS (
    SELECT s.startup_id, s.ts, p.upid
    FROM android_startups AS s
    LEFT JOIN android_startup_processes AS p USING (startup_id)
  ),
  by_name AS (
    SELECT s.startup_id, p.upid
    FROM android_startups AS s
    JOIN process AS p ON p.name GLOB s.package
  )
SELECT h.startup_id, h.ts, coalesce(h.upid, n.upid) AS upid
FROM handled AS h
LEFT JOIN by_name AS n ON h.upid IS NULL AND n.startup_id = h.startup_id;

-- The first frame (by start, then id) of a startup's process starting at
-- or after the startup: TTID is from the startup's start to the end of
-- that frame's DrawFrame.
CREATE PERFETTO TABLE _ttid AS
WITH
  candidates AS (
    SELECT s.startup_id, s.ts AS startup_ts, s.upid, f.frame_id, f.draw_frame_id,
      ROW_NUMBER() OVER (PARTITION BY s.startup_id ORDER BY f.ts, f.frame_id) AS rank
    FROM _startups_with_upid AS s
    JOIN android_frames AS f ON f.upid = s.upid AND f.ts >= s.ts
  )
SELECT c.startup_id, c.frame_id, c.draw_frame_id,
  d.ts + d.dur - c.startup_ts AS ttid, c.upid
FROM candidates AS c
JOIN slice AS d ON d.id = c.draw_frame_id
WHERE c.rank = 1;

-- The first "reportFullyDrawn*" slice of a startup's process on a main
-- thread from the startup's start; then the first frame of that thread
-- ending after it began: TTFD is from the startup's start to the end of
-- that frame's DrawFrame.
CREATE PERFETTO TABLE _ttfd AS
WITH
  reports AS (
    SELECT s.startup_id, s.ts AS startup_ts, s.upid, r.ts AS report_ts, r.utid,
      ROW_NUMBER() OVER (PARTITION BY s.startup_id ORDER BY r.ts, r.id) AS rank
    FROM _startups_with_upid AS s
    JOIN thread_slice AS r ON r.upid = s.upid AND r.ts >= s.ts
    WHERE r.name GLOB 'reportFullyDrawn*' AND r.is_main_thread = 1
  ),
  candidates AS (
    SELECT r.startup_id, r.startup_ts, r.upid, f.frame_id, f.draw_frame_id,
      ROW_NUMBER() OVER (PARTITION BY r.startup_id ORDER BY f.ts, f.frame_id) AS rank
    FROM reports AS r
    JOIN android_frames AS f
      ON f.ui_thread_utid = r.utid AND r.report_ts < f.ts + f.dur
    WHERE r.rank = 1
  )
SELECT c.startup_id, c.frame_id, c.draw_frame_id,
  d.ts + d.dur - c.startup_ts AS ttfd, c.upid
FROM candidates AS c
JOIN slice AS d ON d.id = c.draw_frame_id
WHERE c.rank = 1;

-- Per startup: time to initial display (TTID) and to full display (TTFD),
-- the frames that ended them and the startup's process (NULL without a
-- first frame).
CREATE PERFETTO TABLE android_startup_time_to_display(
  startup_id LONG,
  time_to_initial_display LONG,
  time_to_full_display LONG,
  ttid_frame_id LONG,
  ttfd_frame_id LONG,
  upid JOINID(process.id)
) AS
SELECT
  s.startup_id,
  i.ttid AS time_to_initial_display,
  f.ttfd AS time_to_full_display,
  i.frame_id AS ttid_frame_id,
  f.frame_id AS ttfd_frame_id,
  i.upid
FROM android_startups AS s
LEFT JOIN _ttid AS i USING (startup_id)
LEFT JOIN _ttfd AS f USING (startup_id)
ORDER BY s.startup_id;
