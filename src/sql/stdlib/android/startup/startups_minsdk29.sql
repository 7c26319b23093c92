-- android.startup.startups_minsdk29: startups of Android 10 to 12, cut out
-- of the trace by statsd's launch observer slices
-- ("MetricsLogger:launchObserverNotify...").

INCLUDE PERFETTO MODULE android.startup.startup_events;

-- Each "IntentStarted" slice opens a window lasting to the next one (the
-- last to the trace's end).
CREATE PERFETTO TABLE _activity_intent_recv_spans AS
WITH intents AS (
  SELECT ts FROM slice
  WHERE name = 'MetricsLogger:launchObserverNotifyIntentStarted'
)
SELECT ts, LEAD(ts, 1, trace_end()) OVER (ORDER BY ts) - ts AS dur
FROM intents
ORDER BY ts;

-- The windows in which exactly one launch event starts (bounds included).
CREATE PERFETTO VIEW _startup_partitions AS
SELECT w.ts, w.dur
FROM _activity_intent_recv_spans AS w
WHERE (
  SELECT count(*) FROM _startup_events AS e
  WHERE e.ts >= w.ts AND e.ts <= w.ts + w.dur
) = 1;

-- A launch the observer saw finish.
CREATE PERFETTO VIEW _activity_intent_startup_successful AS
SELECT ts FROM slice
WHERE name = 'MetricsLogger:launchObserverNotifyActivityLaunchFinished';

-- A startup per window holding a finished launch: from the window's start
-- to the end of the launch event lying wholly inside it, with the launch
-- event's package; the type is found later from the app's slices.
CREATE PERFETTO TABLE _startups_minsdk29 AS
SELECT
  w.ts,
  e.ts_end,
  e.ts_end - w.ts AS dur,
  e.package_name AS package,
  NULL AS startup_type
FROM _startup_partitions AS w
JOIN _startup_events AS e
  ON e.ts >= w.ts AND e.ts <= w.ts + w.dur
  AND e.ts_end >= w.ts AND e.ts_end <= w.ts + w.dur
WHERE EXISTS (
  SELECT 1 FROM _activity_intent_startup_successful AS f
  WHERE f.ts >= w.ts AND f.ts <= w.ts + w.dur
)
ORDER BY w.ts;
