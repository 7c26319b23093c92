-- android.oom_adjuster: processes' oom_score_adj over time, with the
-- system_server OomAdjuster update that set each value.

INCLUDE PERFETTO MODULE counters.intervals;
INCLUDE PERFETTO MODULE slices.with_context;

-- Converts an oom_adj score Integer to String sample name. One of: cached,
-- background, job, foreground_service, bfgs, foreground and system
-- (negative scores).
CREATE PERFETTO FUNCTION android_oom_adj_score_to_bucket_name(
  -- `oom_score` value
  oom_score LONG
)
-- Returns the sample bucket based on the oom score.
RETURNS STRING AS
SELECT CASE
  WHEN $oom_score IS NULL THEN NULL
  WHEN $oom_score >= 900 THEN 'cached'
  WHEN $oom_score >= 250 THEN 'background'
  WHEN $oom_score >= 201 THEN 'job'
  WHEN $oom_score = 200 THEN 'foreground_service'
  WHEN $oom_score >= 100 THEN 'bfgs'
  WHEN $oom_score >= 0 THEN 'foreground'
  ELSE 'system'
END;

-- Converts an oom_adj score Integer to String bucket name. Deprecated: use
-- `android_oom_adj_score_to_bucket_name` instead.
CREATE PERFETTO FUNCTION android_oom_adj_score_to_detailed_bucket_name(
  -- oom_adj score.
  value LONG,
  -- android_app id of the process.
  android_appid LONG
)
-- Returns the oom_adj bucket.
RETURNS STRING AS
SELECT CASE
  WHEN $value = -1000 THEN 'native'
  WHEN $value = -900 THEN 'system'
  WHEN $value = -800 THEN 'persistent_proc'
  WHEN $value = -700 THEN 'persistent_service'
  WHEN $value = -600 THEN 'logcat'
  WHEN $value = 0 THEN 'foreground_app'
  WHEN $value = 50 THEN 'perceptible_foreground_app'
  WHEN $value BETWEEN 100 AND 199 THEN 'visible_app'
  WHEN $value BETWEEN 200 AND 224 THEN 'perceptible_app'
  WHEN $value BETWEEN 225 AND 249 THEN 'perceptible_medium_app'
  WHEN $value BETWEEN 250 AND 299 THEN 'perceptible_low_app'
  WHEN $value BETWEEN 300 AND 399 THEN 'backup'
  WHEN $value BETWEEN 400 AND 499 THEN 'heavy_weight_app'
  WHEN $value BETWEEN 500 AND 599 THEN 'service'
  WHEN $value BETWEEN 600 AND 699 THEN 'home_app'
  WHEN $value BETWEEN 700 AND 799 THEN 'previous_app'
  WHEN $value BETWEEN 800 AND 899 THEN 'service_b'
  WHEN $value BETWEEN 900 AND 949 THEN 'cached_app'
  WHEN $value >= 950 THEN 'cached_app_lmk_first'
  WHEN $android_appid IS NULL THEN 'unknown'
  WHEN $android_appid < 10000 THEN 'unknown_native'
  ELSE 'unknown_app'
END;

-- system_server's "updateOomAdj_<reason>" slices on any of its threads,
-- in order of start; the trigger is the name of the slice each is under
-- (NULL at depth 0).
CREATE PERFETTO TABLE _android_oom_adj_update AS
SELECT
  u.id AS oom_adj_id,
  u.ts AS oom_adj_ts,
  u.dur AS oom_adj_dur,
  u.track_id AS oom_adj_track_id,
  u.thread_name AS oom_adj_thread_name,
  str_split(u.name, '_', 1) AS oom_adj_reason,
  parent.name AS oom_adj_trigger,
  coalesce(lead(u.ts) OVER (ORDER BY u.ts, u.id), trace_end()) AS until_ts
FROM thread_slice AS u
LEFT JOIN slice AS parent ON parent.id = u.parent_id
WHERE u.name GLOB 'updateOomAdj_*' AND u.process_name = 'system_server';

-- All oom adj state intervals across all processes along with the reason
-- for the state update: the latest update that started strictly before the
-- change (a change at an update's start belongs to the one before).
CREATE PERFETTO VIEW android_oom_adj_intervals(
  -- Timestamp the oom_adj score of the process changed
  ts TIMESTAMP,
  -- Duration until the next oom_adj score change of the process.
  dur DURATION,
  -- oom_adj score of the process.
  score LONG,
  -- oom_adj bucket of the process.
  bucket STRING,
  -- Upid of the process having an oom_adj update.
  upid JOINID(process.id),
  -- Name of the process having an oom_adj update.
  process_name STRING,
  -- Slice id of the latest oom_adj update in the system_server.
  oom_adj_id LONG,
  -- Timestamp of the latest oom_adj update in the system_server.
  oom_adj_ts TIMESTAMP,
  -- Duration of the latest oom_adj update in the system_server.
  oom_adj_dur DURATION,
  -- Track id of the latest oom_adj update in the system_server
  oom_adj_track_id JOINID(track.id),
  -- Thread name of the latest oom_adj update in the system_server.
  oom_adj_thread_name STRING,
  -- Reason for the latest oom_adj update in the system_server.
  oom_adj_reason STRING,
  -- Trigger for the latest oom_adj update in the system_server.
  oom_adj_trigger STRING
) AS
SELECT
  c.ts,
  c.dur,
  cast_int!(c.value) AS score,
  android_oom_adj_score_to_bucket_name(cast_int!(c.value)) AS bucket,
  p.upid,
  p.name AS process_name,
  u.oom_adj_id,
  u.oom_adj_ts,
  u.oom_adj_dur,
  u.oom_adj_track_id,
  u.oom_adj_thread_name,
  u.oom_adj_reason,
  u.oom_adj_trigger
FROM counter_leading_intervals!((
  SELECT counter.*
  FROM counter
  JOIN process_counter_track AS t ON t.id = counter.track_id
  WHERE t.name = 'oom_score_adj'
)) AS c
JOIN process_counter_track AS t ON t.id = c.track_id
JOIN process AS p USING (upid)
LEFT JOIN _android_oom_adj_update AS u ON c.ts > u.oom_adj_ts AND c.ts <= u.until_ts;
