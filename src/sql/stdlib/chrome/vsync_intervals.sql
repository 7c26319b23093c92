-- chrome.vsync_intervals: the time between Chrome's VSync slices (recorded
-- under the "Java" category), telling the display's refresh rate.

-- Every "VSync" slice with the time to the next one on its track (NULL for
-- the last).
CREATE PERFETTO TABLE chrome_vsync_intervals(
  slice_id LONG,
  ts TIMESTAMP,
  dur DURATION,
  track_id LONG,
  time_to_next_vsync LONG
) AS
SELECT
  id AS slice_id,
  ts,
  dur,
  track_id,
  lead(ts) OVER (PARTITION BY track_id ORDER BY ts) - ts AS time_to_next_vsync
FROM slice
WHERE name = 'VSync'
ORDER BY track_id, ts;

-- The mean time between vsyncs over those starting strictly inside
-- (begin_ts, end_ts) with a next one, as a double; 1e9 / 60 (60 Hz) when
-- there are none.
CREATE PERFETTO FUNCTION chrome_calculate_avg_vsync_interval(
  begin_ts TIMESTAMP,
  end_ts TIMESTAMP
)
RETURNS DOUBLE AS
SELECT coalesce(
  (SELECT CAST(avg(v.time_to_next_vsync) AS DOUBLE)
   FROM chrome_vsync_intervals AS v
   WHERE v.time_to_next_vsync IS NOT NULL
     AND v.ts > $begin_ts AND v.ts < $end_ts),
  1e9 / 60);
