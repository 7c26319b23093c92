-- android.freezer: when ActivityManager's cached-app freezer froze each
-- process and for how long.
--
-- system_server marks a freeze with a slice "Freeze <process>:<pid>" and a
-- thaw with "Unfreeze <process>:<pid> <reason>". A process is frozen from a
-- freeze to its next freeze or thaw (or the trace's end); the reason is the
-- thaw's (a number from atoms.proto).

-- The pid of a freezer slice: the text after the last ':' of its second
-- word.
CREATE PERFETTO FUNCTION _android_freezer_pid(name STRING)
RETURNS LONG AS
SELECT cast_int!(reverse(str_split(reverse(str_split($name, ' ', 1)), ':', 0)));

-- The process with `pid` alive at `ts` (its start and end, when unknown,
-- are the trace's); of several, the latest.
CREATE PERFETTO FUNCTION _android_freezer_upid(pid LONG, ts TIMESTAMP)
RETURNS LONG AS
SELECT upid
FROM process
WHERE pid = $pid
  AND $ts BETWEEN coalesce(start_ts, trace_start()) AND coalesce(end_ts, trace_end())
ORDER BY upid DESC
LIMIT 1;

-- The name of an unfreeze reason number.
CREATE PERFETTO FUNCTION _android_unfreeze_reason(reason LONG)
RETURNS STRING AS
SELECT CASE $reason
  WHEN 0 THEN 'none'
  WHEN 1 THEN 'activity'
  WHEN 2 THEN 'finish_receiver'
  WHEN 3 THEN 'start_receiver'
  WHEN 4 THEN 'bind_service'
  WHEN 5 THEN 'unbind_service'
  WHEN 6 THEN 'start_service'
  WHEN 7 THEN 'get_provider'
  WHEN 8 THEN 'remove_provider'
  WHEN 9 THEN 'ui_visibility'
  WHEN 10 THEN 'allowlist'
  WHEN 11 THEN 'process_begin'
  WHEN 12 THEN 'process_end'
  WHEN 13 THEN 'trim_memory'
  WHEN 15 THEN 'ping'
  WHEN 16 THEN 'file_locks'
  WHEN 17 THEN 'file_lock_check_failure'
  WHEN 18 THEN 'binder_txns'
  WHEN 19 THEN 'feature_flags'
  WHEN 20 THEN 'short_fgs_timeout'
  WHEN 21 THEN 'system_init'
  WHEN 22 THEN 'backup'
  WHEN 23 THEN 'shell'
  WHEN 24 THEN 'remove_task'
  WHEN 25 THEN 'uid_idle'
  WHEN 26 THEN 'stop_service'
  WHEN 27 THEN 'executing_service'
  WHEN 28 THEN 'restriction_change'
  WHEN 29 THEN 'component_disabled'
  ELSE NULL
END;

-- All frozen processes and their frozen duration.
CREATE PERFETTO TABLE android_freezer_events(
  -- Upid of frozen process
  upid JOINID(process.id),
  -- Pid of frozen process
  pid LONG,
  -- Timestamp process was frozen.
  ts TIMESTAMP,
  -- Duration process was frozen for.
  dur DURATION,
  -- Unfreeze reason Integer.
  unfreeze_reason_int LONG,
  -- Unfreeze reason String.
  unfreeze_reason_str STRING
) AS
WITH
  marks AS (
    SELECT
      ts,
      _android_freezer_pid(name) AS pid,
      _android_freezer_upid(_android_freezer_pid(name), ts) AS upid,
      name GLOB 'Freeze *' AS is_freeze,
      IIF(name GLOB 'Unfreeze *', str_split(name, ' ', 2), NULL) AS reason
    FROM slice
    WHERE name GLOB 'Freeze *:*' OR name GLOB 'Unfreeze *:*'
  ),
  spans AS (
    SELECT
      upid, pid, ts, is_freeze,
      coalesce(lead(ts) OVER (PARTITION BY upid ORDER BY ts), trace_end()) - ts AS dur,
      cast_int!(lead(reason) OVER (PARTITION BY upid ORDER BY ts)) AS reason
    FROM marks
  )
SELECT
  upid,
  pid,
  ts,
  dur,
  reason AS unfreeze_reason_int,
  _android_unfreeze_reason(reason) AS unfreeze_reason_str
FROM spans
WHERE is_freeze AND upid IS NOT NULL;
