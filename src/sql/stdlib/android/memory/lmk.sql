-- android.memory.lmk: processes killed by lmkd, the low memory killer.
--
-- Three generations of lmkd trace events, the newest present is used:
-- instants "lmk,<pid>,<reason>,<oom_score_adj>" on a process track named
-- "lowmemorykiller"; slices of positive length of that name (older); the
-- counter "kill_one_process" whose positive values are the killed pids
-- (oldest, the score then read from android_oom_adj_intervals).

INCLUDE PERFETTO MODULE android.oom_adjuster;

-- The name of an lmkd kill reason (lmkd/statslog.h).
CREATE PERFETTO FUNCTION _android_lmk_reason_name(kill_reason LONG)
RETURNS STRING AS
SELECT CASE
  WHEN $kill_reason = 0 THEN 'PRESSURE_AFTER_KILL'
  WHEN $kill_reason = 1 THEN 'NOT_RESPONDING'
  WHEN $kill_reason = 2 THEN 'LOW_SWAP_AND_THRASHING'
  WHEN $kill_reason = 3 THEN 'LOW_MEM_AND_SWAP'
  WHEN $kill_reason = 4 THEN 'LOW_MEM_AND_THRASHING'
  WHEN $kill_reason = 5 THEN 'DIRECT_RECL_AND_THRASHING'
  WHEN $kill_reason = 6 THEN 'LOW_MEM_AND_SWAP_UTIL'
  WHEN $kill_reason = 7 THEN 'LOW_FILECACHE_AFTER_THRASHING'
  WHEN $kill_reason = 8 THEN 'LOW_MEM'
  WHEN $kill_reason = 9 THEN 'DIRECT_RECL_STUCK'
  WHEN $kill_reason >= 1000 AND $kill_reason < 2000 THEN 'VENDOR_REASON'
  ELSE 'UNKNOWN'
END;

-- The kills named by "lmk,<pid>,<reason>,<score>" slices (`instant`: the
-- zero-length ones on "lowmemorykiller" process tracks, else those of
-- positive length anywhere).
CREATE PERFETTO MACRO _android_lmk_named_kills(instant Expr)
RETURNS TableOrSubquery AS
(
  SELECT
    s.ts,
    cast_int!(str_split(s.name, ',', 1)) AS pid,
    cast_int!(str_split(s.name, ',', 2)) AS kill_reason_raw,
    cast_int!(str_split(s.name, ',', 3)) AS oom_score_adj
  FROM slice AS s
  LEFT JOIN process_track AS pt ON pt.id = s.track_id
  WHERE s.name GLOB 'lmk,*'
    AND IIF($instant, s.dur = 0 AND pt.name IS 'lowmemorykiller', s.dur > 0)
);

CREATE PERFETTO TABLE _android_lmk_instant AS
SELECT * FROM _android_lmk_named_kills!(1);

CREATE PERFETTO TABLE _android_lmk_slices AS
SELECT * FROM _android_lmk_named_kills!(0);

-- kill_one_process samples, with the killed process's oom score then.
CREATE PERFETTO TABLE _android_lmk_kill_one_process AS
WITH kills AS (
  SELECT c.ts, cast_int!(c.value) AS pid
  FROM counter AS c
  JOIN counter_track AS t ON t.id = c.track_id
  WHERE t.name = 'kill_one_process' AND c.value > 0
)
SELECT k.ts, k.pid, NULL AS kill_reason_raw, o.score AS oom_score_adj
FROM kills AS k
LEFT JOIN (
  SELECT i.ts, i.dur, i.score, p.pid
  FROM android_oom_adj_intervals AS i
  JOIN process AS p USING (upid)
) AS o ON o.pid = k.pid AND k.ts >= o.ts AND k.ts < o.ts + o.dur;

-- Android Low-Memory Kill (LMK) events
CREATE PERFETTO TABLE android_lmk_events(
  -- timestamp of the kill being requested by lmkd
  ts TIMESTAMP,
  -- upid of the process being killed
  upid JOINID(process.upid),
  -- pid of the process being killed
  pid LONG,
  -- process name of the process being killed
  process_name STRING,
  -- oom_score_adj of the process being killed
  oom_score_adj LONG,
  -- lmkd kill_reason (matches lmkd/statslog.h kill_reasons enum)
  kill_reason STRING,
  -- lmkd kill_reason enum value
  kill_reason_raw LONG
) AS
WITH kills AS (
  SELECT * FROM _android_lmk_instant
  UNION ALL
  SELECT * FROM _android_lmk_slices
  WHERE NOT EXISTS (SELECT 1 FROM _android_lmk_instant)
  UNION ALL
  SELECT * FROM _android_lmk_kill_one_process
  WHERE NOT EXISTS (SELECT 1 FROM _android_lmk_instant)
    AND NOT EXISTS (SELECT 1 FROM _android_lmk_slices)
)
SELECT
  k.ts,
  p.upid,
  k.pid,
  p.name AS process_name,
  k.oom_score_adj,
  _android_lmk_reason_name(k.kill_reason_raw) AS kill_reason,
  k.kill_reason_raw
FROM kills AS k
LEFT JOIN process AS p
  ON p.pid = k.pid
  AND k.ts BETWEEN coalesce(p.start_ts, trace_start()) AND coalesce(p.end_ts, trace_end());
