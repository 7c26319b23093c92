-- sched.states: human-readable names of the kernel's scheduling states.

-- The long name of a scheduling state as thread_state and sched write it
-- ('Running', 'R', 'R+', 'S', 'D', ...); any other text comes back as is.
CREATE PERFETTO FUNCTION sched_state_to_human_readable_string(
  short_name STRING
)
RETURNS STRING AS
SELECT CASE $short_name
  WHEN 'Running' THEN 'Running'
  WHEN 'R' THEN 'Runnable'
  WHEN 'R+' THEN 'Runnable (Preempted)'
  WHEN 'S' THEN 'Sleeping'
  WHEN 'D' THEN 'Uninterruptible Sleep'
  WHEN 'T' THEN 'Stopped'
  WHEN 't' THEN 'Traced'
  WHEN 'X' THEN 'Exit (Dead)'
  WHEN 'Z' THEN 'Exit (Zombie)'
  WHEN 'x' THEN 'Task Dead'
  WHEN 'I' THEN 'Idle'
  WHEN 'K' THEN 'Wakekill'
  WHEN 'W' THEN 'Waking'
  WHEN 'P' THEN 'Parked'
  WHEN 'N' THEN 'No Load'
  ELSE $short_name
END;

-- The long name of a state followed by ' (IO)' when io_wait is 1,
-- ' (non-IO)' when it is 0 and nothing when it is NULL.
CREATE PERFETTO FUNCTION sched_state_io_to_human_readable_string(
  sched_state STRING,
  io_wait BOOL
)
RETURNS STRING AS
SELECT sched_state_to_human_readable_string($sched_state)
  || iif($io_wait IS NULL, '', iif($io_wait, ' (IO)', ' (non-IO)'));
