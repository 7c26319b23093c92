-- linux.counter_runs: private helpers of the linux modules (not a Perfetto
-- module; nothing public here).

-- Turns counter samples (id, ts, track_id, value) into intervals during which
-- each track keeps a value: every sample lasts until the next kept sample of
-- its track, the last one until the end of the trace. Of a run of equal
-- consecutive values, the first, the second (standing for the run's middle)
-- and the last sample are kept.
CREATE PERFETTO MACRO _linux_counter_leading_intervals(
  counters TableOrSubquery
)
RETURNS TableOrSubquery AS (
  WITH
    _linux_cli_marked AS (
      SELECT
        id,
        ts,
        track_id,
        value,
        row_number() OVER _linux_cli_track AS nth,
        lag(value) OVER _linux_cli_track AS prev_value,
        lag(value, 2) OVER _linux_cli_track AS prev2_value,
        lead(value) OVER _linux_cli_track AS next_value,
        lead(id) OVER _linux_cli_track AS next_id
      FROM $counters
      WINDOW _linux_cli_track AS (PARTITION BY track_id ORDER BY ts, id)
    ),
    _linux_cli_kept AS (
      SELECT id, ts, track_id, value
      FROM _linux_cli_marked
      WHERE nth <= 2
        OR value != prev_value
        OR value != prev2_value
        OR next_id IS NULL
        OR value != next_value
    )
  SELECT
    id,
    ts,
    lead(ts, 1, (SELECT end_ts FROM trace_bounds))
      OVER (PARTITION BY track_id ORDER BY ts, id) - ts AS dur,
    track_id,
    value
  FROM _linux_cli_kept
);
