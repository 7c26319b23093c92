-- sched.with_context: the sched table with the names of each slice's thread
-- and process.

-- One row per sched slice; upid and process_name are NULL for a thread
-- without a process.
CREATE PERFETTO VIEW sched_with_thread_process(
  id ID(sched.id),
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id),
  upid JOINID(process.id),
  thread_name STRING,
  process_name STRING,
  cpu LONG,
  end_state STRING,
  priority LONG
) AS
SELECT
  s.id,
  s.ts,
  s.dur,
  s.utid,
  t.upid,
  t.name AS thread_name,
  p.name AS process_name,
  s.cpu,
  s.end_state,
  s.priority
FROM thread AS t
JOIN sched AS s ON s.utid = t.utid
LEFT JOIN process AS p ON p.upid = t.upid;
