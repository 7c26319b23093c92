-- sched.latency: how long each running interval waited as runnable.

INCLUDE PERFETTO MODULE sched.runnable;

-- For each running thread state that has a sched slice (same thread, start
-- and duration) and an earlier runnable state: that runnable state and its
-- duration.
CREATE PERFETTO TABLE sched_latency_for_running_interval(
  thread_state_id JOINID(thread_state.id),
  sched_id JOINID(sched.id),
  utid JOINID(thread.id),
  runnable_latency_id JOINID(thread_state.id),
  latency_dur LONG
) AS
SELECT
  r.id AS thread_state_id,
  s.id AS sched_id,
  running.utid,
  r.prev_runnable_id AS runnable_latency_id,
  waited.dur AS latency_dur
FROM sched_previous_runnable_on_thread AS r
JOIN thread_state AS waited ON waited.id = r.prev_runnable_id
JOIN thread_state AS running ON running.id = r.id
JOIN sched AS s
  ON s.utid = running.utid AND s.ts = running.ts AND s.dur = running.dur
ORDER BY r.id;
