-- android.screen_state: the display's state over the trace, from the
-- "ScreenState" counter (android.view.Display's STATE_* codes).

INCLUDE PERFETTO MODULE counters.intervals;
INCLUDE PERFETTO MODULE intervals.fill_gaps;

-- Screen state: on, off or doze (always on display). Time without a known
-- state (before the first sample, an unlisted code) is 'unknown'.
CREATE PERFETTO TABLE android_screen_state(
  id ID,
  ts TIMESTAMP,
  dur DURATION,
  simple_screen_state STRING,
  short_screen_state STRING,
  screen_state STRING
) AS
WITH
  named_runs AS (
    SELECT
      run.ts,
      run.dur,
      CASE run.value
        WHEN 1 THEN 'off' WHEN 2 THEN 'on' WHEN 3 THEN 'doze'
        WHEN 4 THEN 'doze' WHEN 5 THEN 'on' WHEN 6 THEN 'on'
      END AS simple_screen_state,
      CASE run.value
        WHEN 1 THEN 'off' WHEN 2 THEN 'on' WHEN 3 THEN 'doze'
        WHEN 4 THEN 'doze-suspend' WHEN 5 THEN 'on-vr' WHEN 6 THEN 'on-suspend'
      END AS short_screen_state,
      CASE run.value
        WHEN 1 THEN 'Screen off'
        WHEN 2 THEN 'Screen on'
        WHEN 3 THEN 'Always-on display (doze)'
        WHEN 4 THEN 'Always-on display (doze-suspend)'
        WHEN 5 THEN 'Screen on (VR)'
        WHEN 6 THEN 'Screen on (suspend)'
      END AS screen_state
    FROM counter_leading_intervals!((
      SELECT sample.id, sample.ts, 0 AS track_id, sample.value
      FROM counter AS sample
      JOIN counter_track AS screen_track ON screen_track.id = sample.track_id
      WHERE screen_track.name = 'ScreenState'
    )) AS run
    WHERE run.dur > 0
  ),
  covered AS (
    SELECT * FROM _intervals_fill_gaps!((NULL),
      (simple_screen_state, short_screen_state, screen_state), named_runs)
  )
SELECT
  row_number() OVER (ORDER BY ts) AS id,
  ts,
  dur,
  coalesce(simple_screen_state, 'unknown') AS simple_screen_state,
  coalesce(short_screen_state, 'unknown') AS short_screen_state,
  coalesce(screen_state, 'Unknown') AS screen_state
FROM covered
ORDER BY ts;
