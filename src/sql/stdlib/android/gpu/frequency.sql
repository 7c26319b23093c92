-- android.gpu.frequency: each gpu's frequency over time, from its "gpufreq"
-- gpu counter track (gpu_frequency events).

INCLUDE PERFETTO MODULE counters.intervals;

-- GPU frequency intervals per gpu: a sample lasts until the next kept one
-- of its gpu (samples inside a run of equal values collapse as in
-- counter_leading_intervals!), with the frequencies before and after.
CREATE PERFETTO TABLE android_gpu_frequency(
  ts TIMESTAMP,
  dur DURATION,
  gpu_id LONG,
  gpu_freq LONG,
  prev_gpu_freq LONG,
  next_gpu_freq LONG
) AS
WITH
  -- Counter tracks named gpufreq with a gpu dimension (the rows of
  -- gpu_counter_track that Perfetto reads).
  freq_track AS (
    SELECT id, extract_arg(dimension_arg_set_id, 'gpu') AS gpu_id
    FROM counter_track
    WHERE name = 'gpufreq' AND extract_arg(dimension_arg_set_id, 'gpu') IS NOT NULL
  ),
  runs AS (
    SELECT run.ts, run.dur, freq_track.gpu_id, run.value, run.next_value,
      lag(run.value) OVER (PARTITION BY run.track_id ORDER BY run.ts) AS prev_value
    FROM counter_leading_intervals!((
      SELECT sample.id, sample.ts, sample.track_id, sample.value
      FROM counter AS sample
      WHERE sample.track_id IN (SELECT id FROM freq_track)
    )) AS run
    JOIN freq_track ON freq_track.id = run.track_id
  )
SELECT
  ts,
  dur,
  gpu_id,
  CAST(value AS INT) AS gpu_freq,
  CAST(prev_value AS INT) AS prev_gpu_freq,
  CAST(next_value AS INT) AS next_gpu_freq
FROM runs
ORDER BY gpu_id, ts;
