-- android.job_scheduler: scheduled jobs as system_server traces them (atrace
-- category "ss"): slices on its "JobScheduler" process tracks whose name
-- contains "job" (case-sensitive) and reads "<prefix><uid>package/service#id#".

-- Scheduled jobs with their latencies; a job still running at the trace's
-- end lasts until then. Parts the name lacks are NULL.
CREATE PERFETTO TABLE android_job_scheduler_events(
  job_id LONG,
  uid LONG,
  package_name STRING,
  job_service_name STRING,
  track_id JOINID(track.id),
  id LONG,
  ts TIMESTAMP,
  dur DURATION
) AS
SELECT
  CAST(str_split(job.name, '#', 1) AS INT) AS job_id,
  CAST(str_split(str_split(job.name, '<', 1), '>', 0) AS INT) AS uid,
  str_split(str_split(job.name, '>', 1), '/', 0) AS package_name,
  str_split(str_split(job.name, '/', 1), '#', 0) AS job_service_name,
  job.track_id,
  job.id,
  job.ts,
  iif(job.dur = -1, trace_end() - job.ts, job.dur) AS dur
FROM slice AS job
JOIN process_track AS scheduler_track ON scheduler_track.id = job.track_id
JOIN process AS server ON server.upid = scheduler_track.upid
WHERE server.name = 'system_server'
  AND scheduler_track.name = 'JobScheduler'
  AND job.name GLOB '*job*'
ORDER BY job.id;
