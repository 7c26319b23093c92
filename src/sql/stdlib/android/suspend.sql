-- android.suspend: when each machine was suspended and when awake.
--
-- A suspension is a slice on the machine's "Suspend/Resume Minimal" track
-- (from suspend_resume_minimal events) or, on a machine without that track's
-- slices, a finished "syscore_resume(0)" or "timekeeping_freeze(0)" slice on
-- its "Suspend/Resume Latency" tracks. A suspension overlapping the next one
-- of its machine (lost events) is dropped. The rest of the time is awake;
-- machine 0 is awake all through a trace without suspensions, while another
-- machine without them has no rows (it may have slept throughout).

INCLUDE PERFETTO MODULE intervals.fill_gaps;

-- Suspensions of a source: (ts, dur, machine_id), with `gap` the time from
-- each one's end to the next one's start on its machine (or the trace's end).
CREATE PERFETTO MACRO _android_suspend_with_gap(suspensions TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT
    ts,
    dur,
    coalesce(lead(ts) OVER (PARTITION BY machine_id ORDER BY ts), trace_end())
      - ts - dur AS gap,
    machine_id
  FROM $suspensions
);

-- Suspended and awake periods per machine, ordered by ts. (The columns come
-- in the order Perfetto's table gives them, machine_id before power_state.)
CREATE PERFETTO TABLE android_suspend_state(
  ts TIMESTAMP,
  dur DURATION,
  machine_id JOINID(machine.id),
  power_state STRING
) AS
WITH
  minimal AS (
    SELECT * FROM _android_suspend_with_gap!((
      SELECT phase.ts, phase.dur, phase_track.machine_id
      FROM slice AS phase
      JOIN track AS phase_track ON phase_track.id = phase.track_id
      WHERE phase_track.name = 'Suspend/Resume Minimal'
    ))
  ),
  latency AS (
    SELECT * FROM _android_suspend_with_gap!((
      SELECT phase.ts, phase.dur, phase_track.machine_id
      FROM slice AS phase
      JOIN track AS phase_track ON phase_track.id = phase.track_id
      WHERE phase_track.name = 'Suspend/Resume Latency'
        AND phase.name IN ('syscore_resume(0)', 'timekeeping_freeze(0)')
        AND phase.dur != -1
        AND NOT EXISTS (
          SELECT 1 FROM minimal WHERE minimal.machine_id IS phase_track.machine_id)
    ))
  ),
  suspended AS (
    SELECT ts, dur, machine_id, 'suspended' AS power_state
    FROM (SELECT * FROM minimal UNION ALL SELECT * FROM latency)
    WHERE gap >= 0
    UNION ALL
    SELECT NULL, NULL, 0, NULL
  )
SELECT
  ts,
  dur,
  coalesce(machine_id, 0) AS machine_id,
  coalesce(power_state, 'awake') AS power_state
FROM _intervals_fill_gaps!((machine_id), (power_state), suspended)
ORDER BY ts;

-- The part of an event's duration during which the device was not
-- suspended (its duration on the monotonic clock); `dur` itself when there
-- was no suspension.
CREATE PERFETTO FUNCTION _extract_duration_without_suspend(
  ts TIMESTAMP,
  dur DURATION
)
RETURNS LONG AS
SELECT to_monotonic($ts + $dur) - to_monotonic($ts);
