-- android.anrs: the ANRs system_server reported, one row per report.
--
-- system_server announces an ANR with two process counters of its own:
-- "ErrorId:<process>[ <pid>]#<uuid>" (its samples are the ANRs) and
-- "Subject(for ErrorId <uuid>):<subject>". The ActivityManager's ANR timers
-- leave slices "expired(<timer>,<pid>,<uid>,<type>,<timeout ms>)"; an ANR
-- takes the latest timer of its pid that expired at or before it.

-- The ANR type a subject line describes (system_server's unknown subjects
-- are watchdog timeouts); NULL without a subject.
CREATE PERFETTO FUNCTION _anr_type_of_subject(subject STRING, process_name STRING)
RETURNS STRING AS
SELECT CASE
  WHEN $subject IS NULL THEN NULL
  WHEN $subject GLOB 'Broadcast of*' THEN 'BROADCAST_OF_INTENT'
  WHEN $subject GLOB 'Input dispatching timed out*does not have a focused window*'
    OR $subject GLOB 'Input dispatching timed out*Waiting because no window has focus but there is a focused application*'
    THEN 'INPUT_DISPATCHING_TIMEOUT_NO_FOCUSED_WINDOW'
  WHEN $subject GLOB 'Input dispatching timed out*' THEN 'INPUT_DISPATCHING_TIMEOUT'
  WHEN $subject GLOB 'Context.startForegroundService() did not then call Service.startForeground()*'
    THEN 'START_FOREGROUND_SERVICE'
  WHEN $subject GLOB 'executing service*' THEN 'EXECUTING_SERVICE'
  WHEN $subject GLOB 'ContentProvider not responding*' THEN 'CONTENT_PROVIDER_NOT_RESPONDING'
  WHEN $subject = 'App requested: Buffer processing hung up due to stuck fence. Indicates GPU hang'
    THEN 'GPU_HANG'
  WHEN $subject GLOB 'No response to onStartJob*' THEN 'JOB_SERVICE_START'
  WHEN $subject GLOB 'No response to onStopJob*' THEN 'JOB_SERVICE_STOP'
  WHEN $subject GLOB 'Timed out while trying to bind*' THEN 'JOB_SERVICE_BIND'
  WHEN $subject GLOB 'Process ProcessRecord{*} failed to complete startup' THEN 'BIND_APPLICATION'
  WHEN $subject GLOB 'A foreground service of FOREGROUND_SERVICE_TYPE_SHORT_SERVICE did not stop within a timeout*'
    THEN 'FOREGROUND_SHORT_SERVICE_TIMEOUT'
  WHEN $subject GLOB 'A foreground service of type*' THEN 'FOREGROUND_SERVICE_TIMEOUT'
  WHEN $subject GLOB 'App requested: *' THEN 'APP_TRIGGERED'
  WHEN $subject GLOB 'required notification not provided*' THEN 'JOB_SERVICE_NOTIFICATION_NOT_PROVIDED'
  WHEN $process_name = 'system_server' THEN 'SYSTEM_SERVER_WATCHDOG_TIMEOUT'
  ELSE 'UNKNOWN_ANR_TYPE'
END;

-- Field `idx` (split at `stop`) of the text after `marker`; where the
-- marker is missing, instr() is 0 and the text is read from character
-- length(marker) + 1 on, as Perfetto does.
CREATE PERFETTO FUNCTION _anr_word_after(
  text STRING, marker STRING, stop STRING, idx LONG
)
RETURNS STRING AS
SELECT str_split(substr($text, instr($text, $marker) + length($marker)), $stop, $idx);

-- The intent flags of a broadcast subject ("... flg=0x<hex> ..."), NULL when
-- it names none.
CREATE PERFETTO FUNCTION _anr_broadcast_flags(subject STRING)
RETURNS LONG AS
SELECT IIF(IFNULL($subject GLOB 'Broadcast of Intent *flg=*', 0),
           unhex(_anr_word_after($subject, ' flg=', ' ', 0)), NULL);

-- The usual AOSP timeout of an ANR type, in ms: a broadcast's is 10 s in the
-- foreground (FLAG_RECEIVER_FOREGROUND, 0x10000000, or no flags) and 60 s in
-- the background.
CREATE PERFETTO FUNCTION _anr_default_timeout_ms(anr_type STRING, subject STRING)
RETURNS LONG AS
SELECT CASE $anr_type
  WHEN 'BROADCAST_OF_INTENT' THEN
    IIF((_anr_broadcast_flags($subject) & 268435456) = 0, 60000, 10000)
  WHEN 'INPUT_DISPATCHING_TIMEOUT' THEN 5000
  WHEN 'INPUT_DISPATCHING_TIMEOUT_NO_FOCUSED_WINDOW' THEN 5000
  WHEN 'START_FOREGROUND_SERVICE' THEN 30000
  WHEN 'EXECUTING_SERVICE' THEN 20000
  WHEN 'JOB_SERVICE_START' THEN 8000
  WHEN 'JOB_SERVICE_STOP' THEN 8000
  WHEN 'JOB_SERVICE_BIND' THEN 8000
  WHEN 'JOB_SERVICE_NOTIFICATION_NOT_PROVIDED' THEN 8000
  WHEN 'BIND_APPLICATION' THEN 15000
  WHEN 'FOREGROUND_SHORT_SERVICE_TIMEOUT' THEN 180000
  WHEN 'FOREGROUND_SERVICE_TIMEOUT' THEN 30000
  ELSE NULL
END;

-- The intent a broadcast ANR's subject names ("act=<action>", or the text
-- between "Broadcast of " and "/u").
CREATE PERFETTO FUNCTION _anr_intent(anr_type STRING, subject STRING)
RETURNS STRING AS
SELECT CASE
  WHEN $anr_type IS NOT 'BROADCAST_OF_INTENT' THEN NULL
  WHEN $subject GLOB 'Broadcast of Intent *act=*' THEN _anr_word_after($subject, 'act=', ' ', 0)
  WHEN $subject GLOB 'Broadcast of */u*' THEN _anr_word_after($subject, 'Broadcast of ', '/u', 0)
  ELSE NULL
END;

-- The component an ANR's subject names, by its type.
CREATE PERFETTO FUNCTION _anr_component(anr_type STRING, subject STRING)
RETURNS STRING AS
SELECT CASE $anr_type
  WHEN 'BROADCAST_OF_INTENT' THEN _anr_word_after($subject, ' cmp=', ' ', 0)
  -- "(<token> <component> ...": the second word after the first '('.
  WHEN 'INPUT_DISPATCHING_TIMEOUT' THEN _anr_word_after($subject, '(', ' ', 1)
  -- "ServiceRecord{<hash> u<user> <component>}": the word after " u<user>".
  WHEN 'START_FOREGROUND_SERVICE' THEN str_split(
    substr($subject, instr($subject, ' u') + 1
           + instr(substr($subject, instr($subject, ' u') + 1), ' ')),
    ' ', 0)
  WHEN 'EXECUTING_SERVICE' THEN _anr_word_after($subject, 'executing service ', ',', 0)
  WHEN 'FOREGROUND_SHORT_SERVICE_TIMEOUT' THEN _anr_word_after($subject, 'ComponentInfo{', '}', 0)
  WHEN 'FOREGROUND_SERVICE_TIMEOUT' THEN _anr_word_after($subject, 'ComponentInfo{', '}', 0)
  WHEN 'APP_TRIGGERED' THEN substr($subject, instr($subject, 'App requested: ') + 15)
  ELSE NULL
END;

-- Timer types of the "expired(...)" slices as ANR types; JobScheduler's
-- timers say nothing about the type (NULL).
CREATE PERFETTO FUNCTION _anr_type_of_timer(timer_type STRING)
RETURNS STRING AS
SELECT CASE $timer_type
  WHEN 'BROADCAST_TIMEOUT' THEN 'BROADCAST_OF_INTENT'
  WHEN 'SERVICE_TIMEOUT' THEN 'EXECUTING_SERVICE'
  WHEN 'SHORT_FGS_TIMEOUT' THEN 'FOREGROUND_SHORT_SERVICE_TIMEOUT'
  WHEN 'SERVICE_FOREGROUND_TIMEOUT' THEN 'FOREGROUND_SERVICE_TIMEOUT'
  WHEN 'JobScheduler' THEN NULL
  ELSE $timer_type
END;

-- A watchdog subject's "... for <n>s" as ms.
CREATE PERFETTO FUNCTION _anr_subject_duration_ms(subject STRING)
RETURNS LONG AS
SELECT IIF(IFNULL($subject GLOB '*Blocked in* for *s*', 0),
           CAST(regexp_extract($subject, ' for ([0-9]+)s') * 1000 AS INT), NULL);

-- Samples of system_server's "ErrorId:" counters: one per ANR.
CREATE PERFETTO TABLE _anr_reports AS
WITH named AS (
  SELECT
    substr(str_split(t.name, '#', 0), length('ErrorId:') + 1) AS who,
    str_split(t.name, '#', 1) AS error_id,
    t.id AS track_id
  FROM process_counter_track AS t
  JOIN process AS p USING (upid)
  WHERE t.name GLOB 'ErrorId:*' AND p.name = 'system_server'
)
SELECT
  str_split(n.who, ' ', 0) AS process_name,
  cast_int!(str_split(n.who, ' ', 1)) AS pid,
  n.error_id,
  c.ts
FROM named AS n
JOIN counter AS c ON c.track_id = n.track_id;

-- system_server's "Subject(for ErrorId <uuid>):<subject>" counters.
CREATE PERFETTO TABLE _anr_subjects AS
WITH heads AS (
  SELECT t.name, str_split(t.name, ')', 0) AS head
  FROM process_counter_track AS t
  JOIN process AS p USING (upid)
  WHERE t.name GLOB 'Subject(for ErrorId *' AND p.name = 'system_server'
)
SELECT
  substr(head, length('Subject(for ErrorId ') + 1) AS error_id,
  substr(name, length(head) + 3) AS subject
FROM heads;

-- The ActivityManager's expired ANR timers.
CREATE PERFETTO TABLE _anr_timers AS
WITH params AS (
  SELECT ts, trim(substr(name, length('expired(') + 1), ')') AS p
  FROM slice
  WHERE name GLOB 'expired(*,*,*,*,*)'
)
SELECT
  ts AS timer_ts,
  cast_int!(str_split(p, ',', 1)) AS pid,
  str_split(p, ',', 3) AS timer_type,
  cast_int!(str_split(p, ',', 4)) AS timeout_ms
FROM params;

-- Per ANR, the latest timer of its pid that expired at or before it.
CREATE PERFETTO TABLE _anr_timer_of_report AS
SELECT error_id, timer_ts, timer_type, timeout_ms
FROM (
  SELECT
    r.error_id, t.timer_ts, t.timer_type, t.timeout_ms,
    ROW_NUMBER() OVER (PARTITION BY r.error_id ORDER BY r.ts - t.timer_ts) AS rank
  FROM _anr_reports AS r
  JOIN _anr_timers AS t ON t.pid = r.pid AND t.timer_ts <= r.ts
)
WHERE rank = 1;

-- List of all ANRs that occurred in the trace (one row per ANR).
CREATE PERFETTO TABLE android_anrs(
  -- Name of the process that triggered the ANR.
  process_name STRING,
  -- PID of the process that triggered the ANR.
  pid LONG,
  -- UPID of the process that triggered the ANR.
  upid JOINID(process.id),
  -- UUID of the ANR (generated on the platform).
  error_id STRING,
  -- Timestamp of the ANR.
  ts TIMESTAMP,
  -- The standard type of ANR.
  anr_type STRING,
  -- Subject line of the ANR.
  subject STRING,
  -- The intent that caused the ANR (if applicable).
  intent STRING,
  -- The component associated with the ANR (if applicable).
  component STRING,
  -- The duration between the timer expiration event and the anr counter event
  timer_delay LONG,
  -- Duration of the ANR, from its timer or from the subject line.
  anr_dur_ms LONG,
  -- The usual AOSP timeout of the ANR's type (OEMs may differ).
  default_anr_dur_ms LONG
) AS
WITH typed AS (
  SELECT
    r.process_name,
    r.pid,
    p.upid,
    r.error_id,
    r.ts,
    s.subject,
    r.ts - t.timer_ts AS timer_delay,
    coalesce(_anr_type_of_timer(t.timer_type),
             _anr_type_of_subject(s.subject, r.process_name)) AS anr_type,
    coalesce(t.timeout_ms, _anr_subject_duration_ms(s.subject)) AS anr_dur_ms
  FROM _anr_reports AS r
  LEFT JOIN _anr_subjects AS s USING (error_id)
  LEFT JOIN _anr_timer_of_report AS t USING (error_id)
  LEFT JOIN process AS p ON p.pid = r.pid
)
SELECT
  process_name,
  pid,
  upid,
  error_id,
  ts,
  anr_type,
  subject,
  _anr_intent(anr_type, subject) AS intent,
  _anr_component(anr_type, subject) AS component,
  timer_delay,
  anr_dur_ms,
  _anr_default_timeout_ms(anr_type, subject) AS default_anr_dur_ms
FROM typed;
