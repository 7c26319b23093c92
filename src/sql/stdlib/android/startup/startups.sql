-- android.startup.startups: app startups, found by the rules of the
-- device's Android release (startups_maxsdk28, _minsdk29, _minsdk33), and
-- the processes, threads and slices that took part in them.

INCLUDE PERFETTO MODULE android.process_metadata;
INCLUDE PERFETTO MODULE android.startup.startup_events;
INCLUDE PERFETTO MODULE android.startup.startups_maxsdk28;
INCLUDE PERFETTO MODULE android.startup.startups_minsdk29;
INCLUDE PERFETTO MODULE android.startup.startups_minsdk33;
INCLUDE PERFETTO MODULE android.version;

-- Which rules apply: the SDK level when the trace gives it, else the
-- newest release whose marker slices the trace holds.
CREATE PERFETTO FUNCTION _android_startup_rules()
RETURNS LONG AS
SELECT CASE
  WHEN _android_sdk_version() >= 33 THEN 33
  WHEN _android_sdk_version() >= 29 THEN 29
  WHEN _android_sdk_version() IS NOT NULL THEN 28
  WHEN EXISTS (SELECT 1 FROM slice WHERE name GLOB 'launchingActivity#*:*') THEN 33
  WHEN EXISTS (SELECT 1 FROM slice WHERE name GLOB 'MetricsLogger:*') THEN 29
  ELSE 28
END;

-- The startups of the rules that apply, before their type is completed.
CREATE PERFETTO TABLE _android_startups_raw(
  startup_id LONG,
  ts TIMESTAMP,
  ts_end TIMESTAMP,
  dur DURATION,
  package STRING,
  startup_type STRING
) AS
WITH rules AS (SELECT _android_startup_rules() AS v)
SELECT startup_id, ts, ts_end, dur, package, startup_type
FROM _startups_maxsdk28 WHERE (SELECT v FROM rules) = 28
UNION ALL
SELECT ROW_NUMBER() OVER (ORDER BY ts) - 1, ts, ts_end, dur, package, startup_type
FROM _startups_minsdk29 WHERE (SELECT v FROM rules) = 29
UNION ALL
SELECT startup_id, ts, ts_end, dur, package, startup_type
FROM _startups_minsdk33 WHERE (SELECT v FROM rules) = 33;

-- The slices whose presence on an app's main thread during a startup tells
-- the startup's type.
CREATE PERFETTO TABLE _startup_indicator_slices AS
SELECT s.ts, s.name, s.track_id
FROM slice AS s
WHERE s.name IN ('bindApplication', 'activityStart', 'activityResume');

-- Each startup's candidate processes (those of its package: by the packages
-- list, or when the trace has none, by a process name starting with the
-- package), through their main threads, with the number of each indicator
-- slice starting on that thread within [ts, ts_end).
CREATE PERFETTO TABLE _android_startup_candidates AS
WITH matched AS (
  SELECT r.startup_id, r.ts, r.ts_end, r.startup_type, p.upid, p.pid, t.utid
  FROM _android_startups_raw AS r
  JOIN android_process_metadata AS p
    ON r.package = p.package_name
    OR ((SELECT count(*) FROM package_list) = 0
        AND p.process_name GLOB r.package || '*')
  JOIN thread AS t ON t.upid = p.upid AND t.is_main_thread
)
SELECT
  m.startup_id, m.startup_type, m.upid, m.pid,
  ifnull(sum(i.name = 'bindApplication'), 0) AS bind_app,
  ifnull(sum(i.name = 'activityStart'), 0) AS activity_start,
  ifnull(sum(i.name = 'activityResume'), 0) AS activity_resume
FROM matched AS m
LEFT JOIN thread_track AS tt ON tt.utid = m.utid
LEFT JOIN _startup_indicator_slices AS i
  ON i.track_id = tt.id AND i.ts >= m.ts AND i.ts < m.ts_end
GROUP BY m.startup_id, m.upid, m.utid;

-- Maps a startup to the processes that handled its activity start: those
-- whose main thread resumed an activity during it. The type is the one the
-- platform logged, else cold (the app was bound, started and resumed an
-- activity), warm (started and resumed) or hot (only resumed).
CREATE PERFETTO TABLE android_startup_processes(
  startup_id JOINID(android_startups.startup_id),
  upid JOINID(process.id),
  pid LONG,
  startup_type STRING
) AS
SELECT
  startup_id,
  upid,
  pid,
  coalesce(startup_type, CASE
    WHEN bind_app > 0 AND activity_start > 0 THEN 'cold'
    WHEN activity_start > 0 THEN 'warm'
    ELSE 'hot'
  END) AS startup_type
FROM _android_startup_candidates
WHERE activity_resume > 0
ORDER BY upid, startup_id;

-- All activity startups in the trace by startup id. dur_without_trampoline
-- is the length of the startup's last launch event of its own package when
-- another launch event started before it within the startup (a trampoline
-- activity), else dur. A startup without a logged type takes its
-- processes' type.
CREATE PERFETTO VIEW android_startups(
  startup_id ID,
  ts TIMESTAMP,
  ts_end TIMESTAMP,
  dur DURATION,
  dur_without_trampoline DURATION,
  package STRING,
  startup_type STRING
) AS
SELECT
  r.startup_id,
  r.ts,
  r.ts_end,
  r.dur,
  coalesce((
    SELECT own.dur FROM _startup_events AS own
    WHERE own.package_name = r.package
      AND own.ts >= r.ts AND own.ts < r.ts_end
      AND EXISTS (
        SELECT 1 FROM _startup_events AS earlier
        WHERE earlier.ts >= r.ts AND earlier.ts < own.ts
      )
    ORDER BY own.ts DESC
    LIMIT 1
  ), r.dur) AS dur_without_trampoline,
  r.package,
  coalesce(r.startup_type, (
    SELECT max(p.startup_type) FROM android_startup_processes AS p
    WHERE p.startup_id = r.startup_id
  )) AS startup_type
FROM _android_startups_raw AS r
ORDER BY r.startup_id;

-- Maps a startup to the threads of the processes that handled it.
CREATE PERFETTO VIEW android_startup_threads(
  startup_id JOINID(android_startups.startup_id),
  ts TIMESTAMP,
  dur DURATION,
  upid JOINID(process.id),
  pid LONG,
  utid JOINID(thread.id),
  tid LONG,
  thread_name STRING,
  is_main_thread BOOL
) AS
SELECT
  s.startup_id,
  s.ts,
  s.dur,
  p.upid,
  p.pid,
  t.utid,
  t.tid,
  t.name AS thread_name,
  t.is_main_thread
FROM android_startups AS s
JOIN android_startup_processes AS p USING (startup_id)
JOIN thread AS t ON t.upid = p.upid;

-- All the slices for all startups: those of the startup's threads starting
-- within [ts, ts + dur].
CREATE PERFETTO VIEW android_thread_slices_for_all_startups(
  startup_ts TIMESTAMP,
  startup_ts_end TIMESTAMP,
  startup_id JOINID(android_startups.startup_id),
  utid JOINID(thread.id),
  tid LONG,
  thread_name STRING,
  is_main_thread BOOL,
  arg_set_id ARGSETID,
  slice_id JOINID(slice.id),
  slice_name STRING,
  slice_ts TIMESTAMP,
  slice_dur DURATION
) AS
SELECT
  st.ts AS startup_ts,
  st.ts + st.dur AS startup_ts_end,
  st.startup_id,
  st.utid,
  st.tid,
  st.thread_name,
  st.is_main_thread,
  s.arg_set_id,
  s.id AS slice_id,
  s.name AS slice_name,
  s.ts AS slice_ts,
  s.dur AS slice_dur
FROM android_startup_threads AS st
JOIN thread_track AS tt ON tt.utid = st.utid
JOIN slice AS s ON s.track_id = tt.id
WHERE s.ts >= st.ts AND s.ts <= st.ts + st.dur;

-- A startup's slices whose name matches a GLOB.
CREATE PERFETTO FUNCTION android_slices_for_startup_and_slice_name(
  startup_id JOINID(android_startups.startup_id),
  slice_name STRING
)
RETURNS TABLE(
  slice_id JOINID(slice.id),
  slice_name STRING,
  slice_ts TIMESTAMP,
  slice_dur DURATION,
  thread_name STRING,
  tid LONG,
  arg_set_id ARGSETID
) AS
SELECT slice_id, slice_name, slice_ts, slice_dur, thread_name, tid, arg_set_id
FROM android_thread_slices_for_all_startups
WHERE startup_id = $startup_id AND slice_name GLOB $slice_name;

-- Class loading slices (names "L<class>;") of each startup.
CREATE PERFETTO VIEW android_class_loading_for_startup(
  slice_id JOINID(slice.id),
  startup_id JOINID(android_startups.startup_id),
  slice_name STRING,
  slice_ts TIMESTAMP,
  slice_dur DURATION,
  thread_name STRING,
  tid LONG,
  arg_set_id ARGSETID
) AS
SELECT slice_id, startup_id, slice_name, slice_ts, slice_dur, thread_name, tid, arg_set_id
FROM android_thread_slices_for_all_startups
WHERE slice_name GLOB 'L*;';

-- A startup's "binder transaction" slices longer than a threshold, with the
-- process their "destination process" arg names.
CREATE PERFETTO FUNCTION android_binder_transaction_slices_for_startup(
  startup_id JOINID(android_startups.startup_id),
  threshold DOUBLE
)
RETURNS TABLE(
  id LONG,
  slice_dur DURATION,
  thread_name STRING,
  process STRING,
  arg_set_id ARGSETID,
  is_main_thread BOOL
) AS
SELECT
  s.slice_id AS id,
  s.slice_dur,
  s.thread_name,
  p.name AS process,
  s.arg_set_id,
  s.is_main_thread
FROM android_thread_slices_for_all_startups AS s
JOIN process AS p ON p.pid = extract_arg(s.arg_set_id, 'destination process')
WHERE s.startup_id = $startup_id
  AND s.slice_name GLOB 'binder transaction'
  AND s.slice_dur > $threshold;

-- Total duration of a startup's slices whose name matches a GLOB.
CREATE PERFETTO FUNCTION android_sum_dur_for_startup_and_slice(
  startup_id JOINID(android_startups.startup_id),
  slice_name STRING
)
RETURNS LONG AS
SELECT sum(slice_dur)
FROM android_thread_slices_for_all_startups
WHERE startup_id = $startup_id AND slice_name GLOB $slice_name;

-- Same, on the startup's main threads only.
CREATE PERFETTO FUNCTION android_sum_dur_on_main_thread_for_startup_and_slice(
  startup_id JOINID(android_startups.startup_id),
  slice_name STRING
)
RETURNS LONG AS
SELECT sum(slice_dur)
FROM android_thread_slices_for_all_startups
WHERE startup_id = $startup_id AND slice_name GLOB $slice_name AND is_main_thread;
