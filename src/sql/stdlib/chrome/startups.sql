-- chrome.startups: Chrome's activity startups and their launch causes, from
-- the Startup.* slices of the browser process.

INCLUDE PERFETTO MODULE slices.with_context;

-- Startup events with the activity they launch and their browser process:
-- the activity start (a thread slice), the time to first visible content (a
-- process slice) and the launch cause (a thread slice, recorded later).
CREATE PERFETTO TABLE _chrome_startup_events(
  name STRING,
  ts TIMESTAMP,
  dur LONG,
  activity_id LONG,
  launch_cause STRING,
  browser_upid LONG
) AS
SELECT
  name,
  ts,
  dur,
  extract_arg(arg_set_id, 'startup.activity_id') AS activity_id,
  extract_arg(arg_set_id, 'startup.launch_cause') AS launch_cause,
  upid AS browser_upid
FROM thread_slice
WHERE name IN ('Startup.ActivityStart', 'Startup.LaunchCause')
UNION ALL
SELECT
  name,
  ts,
  dur,
  extract_arg(arg_set_id, 'startup.activity_id') AS activity_id,
  NULL AS launch_cause,
  upid AS browser_upid
FROM process_slice
WHERE name = 'Startup.TimeToFirstVisibleContent2';

-- One row per (activity, browser process) seen starting or showing content,
-- starting when its content started to show, or else when the activity
-- started; one row per launch cause recorded for it.
CREATE PERFETTO TABLE chrome_startups(
  id LONG,
  activity_id LONG,
  name STRING,
  startup_begin_ts TIMESTAMP,
  first_visible_content_ts TIMESTAMP,
  launch_cause STRING,
  browser_upid LONG
) AS
WITH
starts AS (
  SELECT ts, activity_id, browser_upid
  FROM _chrome_startup_events WHERE name = 'Startup.ActivityStart'
),
visible AS (
  SELECT ts, dur, activity_id, browser_upid
  FROM _chrome_startup_events WHERE name = 'Startup.TimeToFirstVisibleContent2'
),
causes AS (
  SELECT activity_id, launch_cause, browser_upid
  FROM _chrome_startup_events WHERE name = 'Startup.LaunchCause'
),
activities AS (
  SELECT activity_id, browser_upid FROM starts
  UNION
  SELECT activity_id, browser_upid FROM visible
),
startups AS (
  SELECT
    a.activity_id,
    coalesce(visible.ts, starts.ts) AS startup_begin_ts,
    visible.ts + visible.dur AS first_visible_content_ts,
    a.browser_upid
  FROM activities AS a
  LEFT JOIN visible USING (activity_id, browser_upid)
  LEFT JOIN starts USING (activity_id, browser_upid)
)
SELECT
  row_number() OVER (ORDER BY startups.startup_begin_ts) AS id,
  startups.activity_id,
  'Startup' AS name,
  startups.startup_begin_ts,
  startups.first_visible_content_ts,
  causes.launch_cause,
  startups.browser_upid
FROM startups
LEFT JOIN causes USING (activity_id, browser_upid);
