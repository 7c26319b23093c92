-- sched.runnable: the runnable state that led to each running state.

-- For each 'Running' thread state (with a known end): the latest earlier
-- 'R' or 'R+' state of the same thread (prev_runnable_id), and the latest
-- earlier runnable state whose wakeup came from a thread outside of an
-- interrupt (prev_wakeup_runnable_id). Unfinished states (dur -1) are not
-- considered.
CREATE PERFETTO TABLE sched_previous_runnable_on_thread(
  id JOINID(thread_state.id),
  prev_runnable_id JOINID(thread_state.id),
  prev_wakeup_runnable_id JOINID(thread_state.id)
) AS
WITH _sched_rn_states AS (
  SELECT
    id,
    state,
    max(iif(state = 'Running', NULL, id)) OVER _sched_rn_thread
      AS prev_runnable_id,
    max(iif(waker_utid IS NOT NULL AND irq_context IS NOT 1, id, NULL))
      OVER _sched_rn_thread AS prev_wakeup_runnable_id
  FROM thread_state
  WHERE state IN ('Running', 'R', 'R+') AND dur != -1
  WINDOW _sched_rn_thread AS (
    PARTITION BY utid ORDER BY id ROWS UNBOUNDED PRECEDING)
)
SELECT id, prev_runnable_id, prev_wakeup_runnable_id
FROM _sched_rn_states
WHERE state = 'Running'
ORDER BY id;
