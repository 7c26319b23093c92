-- counters.intervals: a counter track's samples as intervals during which
-- the value holds ("leading": a sample's value lasts until the next sample
-- of its track, the last one until the end of the trace).
--
-- Within a run of equal values the first and the last sample are kept and
-- the samples between them collapse into the first of them: a sample is
-- dropped when its two predecessors on the track carry its value and its
-- successor does too or there is none (so a run ending the track keeps
-- only its first two samples). Values are doubles, a NULL one read as 0.
-- delta_value is the change from the sample just before on the track
-- (NULL for a track's first sample), next_value the value of the next
-- kept sample (NULL for the last).

CREATE PERFETTO MACRO counter_leading_intervals(
  counter_table TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT
    kept.id,
    kept.ts,
    coalesce(lead(kept.ts) OVER by_track, (SELECT end_ts FROM trace_bounds))
      - kept.ts AS dur,
    kept.track_id,
    kept.value,
    lead(kept.value) OVER by_track AS next_value,
    kept.delta_value
  FROM (
    SELECT
      sample.id,
      sample.ts,
      sample.track_id,
      sample.value,
      lead(sample.value) OVER by_track_all AS after_1,
      sample.value - lag(sample.value) OVER by_track_all AS delta_value,
      lag(sample.value, 1) OVER by_track_all AS before_1,
      lag(sample.value, 2) OVER by_track_all AS before_2
    FROM (
      SELECT input.id, input.ts, input.track_id,
        CAST(coalesce(input.value, 0) AS REAL) AS value
      FROM $counter_table AS input
    ) AS sample
    WINDOW by_track_all AS (PARTITION BY sample.track_id ORDER BY sample.ts, sample.id)
  ) AS kept
  WHERE NOT coalesce(
    kept.before_1 = kept.value AND kept.before_2 = kept.value
      AND (kept.after_1 IS NULL OR kept.after_1 = kept.value), 0)
  WINDOW by_track AS (PARTITION BY kept.track_id ORDER BY kept.ts, kept.id)
  ORDER BY kept.track_id, kept.ts, kept.id
);
