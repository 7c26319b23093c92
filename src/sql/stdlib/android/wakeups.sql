-- android.wakeups: why the device woke up (or failed to suspend), from the
-- instants of the "wakeup_reason", "wakeup_attribution" and
-- "suspend_backoff" tracks.
--
-- A wakeup_reason instant is named "<id> <raw wakeup>", the id a millisecond
-- timestamp that a later wakeup_attribution instant "<id> <attribution>"
-- repeats. A suspend_backoff instant "<quality> <state> <reason> <count>
-- <millis>" belongs to the reason that directly follows it.

INCLUDE PERFETTO MODULE android.suspend;

-- The instants of the track called `track_name`, as (ts, id, rest): id is
-- the name's text before its first space, rest the text after it (the whole
-- name when it has no space, id then being empty).
CREATE PERFETTO MACRO _android_wakeup_instants(track_name Expr)
RETURNS TableOrSubquery AS
(
  SELECT
    mark.ts,
    substr(mark.name, 1, max(instr(mark.name, ' ') - 1, 0)) AS id,
    substr(mark.name, instr(mark.name, ' ') + 1) AS rest
  FROM instant AS mark
  JOIN track AS mark_track ON mark_track.id = mark.track_id
  WHERE mark_track.name = $track_name
);

-- Wakeups, one row per cause (a wakeup with several causes repeats its ts
-- and raw_wakeup). dur is the backoff for a 'bad' suspend, for a 'good' one
-- the time to the next wakeup or suspension (at most 5 s), else 0.
CREATE PERFETTO TABLE android_wakeups(
  ts TIMESTAMP,
  dur DURATION,
  raw_wakeup STRING,
  on_device_attribution STRING,
  type STRING,
  item STRING,
  suspend_quality STRING,
  backoff_state STRING,
  backoff_reason STRING,
  backoff_count LONG,
  backoff_millis LONG
) AS
WITH
  reasons AS (
    SELECT reason.ts, reason.rest AS raw_wakeup, attribution.rest AS on_device_attribution
    FROM _android_wakeup_instants!('wakeup_reason') AS reason
    LEFT JOIN _android_wakeup_instants!('wakeup_attribution') AS attribution
      USING (id)
  ),
  -- Reasons and backoffs in time order: a reason takes the backoff of the
  -- row just before it (none when that is a reason).
  reasons_and_backoffs AS (
    SELECT ts, raw_wakeup, on_device_attribution, NULL AS backoff FROM reasons
    UNION ALL
    SELECT backoff.ts, NULL, NULL, backoff.name
    FROM instant AS backoff
    JOIN track AS backoff_track ON backoff_track.id = backoff.track_id
    WHERE backoff_track.name = 'suspend_backoff'
  ),
  with_backoff AS (
    SELECT ts, raw_wakeup, on_device_attribution,
      lag(backoff) OVER (ORDER BY ts) AS backoff
    FROM reasons_and_backoffs
  ),
  -- Wakeups and suspension starts in time order, for the time to the next.
  events AS (
    SELECT ts, raw_wakeup, on_device_attribution,
      str_split(backoff, ' ', 0) AS suspend_quality,
      str_split(backoff, ' ', 1) AS backoff_state,
      str_split(backoff, ' ', 2) AS backoff_reason,
      CAST(str_split(backoff, ' ', 3) AS INT) AS backoff_count,
      CAST(str_split(backoff, ' ', 4) AS INT) AS backoff_millis,
      0 AS is_suspension
    FROM with_backoff
    WHERE raw_wakeup IS NOT NULL
    UNION ALL
    SELECT ts, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1
    FROM android_suspend_state
    WHERE power_state = 'suspended'
  ),
  timed AS (
    SELECT events.*,
      CASE suspend_quality
        WHEN 'good' THEN min(coalesce(lead(ts) OVER (ORDER BY ts) - ts, 5e9), 5e9)
        WHEN 'bad' THEN backoff_millis * 1000000
        ELSE 0
      END AS blamed_dur
    FROM events
  ),
  -- The kind of wakeup, the text listing its causes and what separates them.
  parsed AS (
    SELECT timed.*,
      CASE
        WHEN raw_wakeup GLOB 'Abort: Pending Wakeup Sources: *' THEN 'abort_pending'
        WHEN raw_wakeup GLOB 'Abort: Last active Wakeup Source: *' THEN 'abort_last_active'
        WHEN raw_wakeup GLOB 'Abort: *' THEN 'abort_other'
        ELSE 'normal'
      END AS type,
      CASE
        WHEN raw_wakeup GLOB 'Abort: Pending Wakeup Sources: *'
          THEN substr(raw_wakeup, length('Abort: Pending Wakeup Sources: ') + 1)
        WHEN raw_wakeup GLOB 'Abort: Last active Wakeup Source: *'
          THEN substr(raw_wakeup, length('Abort: Last active Wakeup Source: ') + 1)
        WHEN raw_wakeup GLOB 'Abort: *' THEN substr(raw_wakeup, length('Abort: ') + 1)
        ELSE raw_wakeup
      END AS causes,
      CASE
        WHEN raw_wakeup GLOB 'Abort: Pending Wakeup Sources: *' THEN ' '
        WHEN raw_wakeup GLOB 'Abort: *' THEN NULL
        ELSE ':'
      END AS separator
    FROM timed
    WHERE NOT is_suspension
  ),
  -- Up to four causes per wakeup, all first causes before all second ones.
  causes AS (
    SELECT parsed.*, position.n,
      iif(separator IS NULL, iif(position.n = 0, causes, NULL),
          str_split(causes, separator, position.n)) AS item
    FROM (SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)
      AS position
    CROSS JOIN parsed
  )
SELECT
  ts,
  CAST(blamed_dur AS INT) AS dur,
  raw_wakeup,
  on_device_attribution,
  type,
  iif(type = 'normal', coalesce(str_split(item, ' ', 1), item), item) AS item,
  suspend_quality,
  backoff_state,
  coalesce(backoff_reason, 'none') AS backoff_reason,
  backoff_count,
  backoff_millis
FROM causes
WHERE n = 0 OR item IS NOT NULL
ORDER BY n, ts;
