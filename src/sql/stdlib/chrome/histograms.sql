-- chrome.histograms: the histogram samples Chrome records as
-- "HistogramSample" slices (category "disabled-by-default-histogram_samples",
-- or the org.chromium.histogram_sample data source, on process tracks).

-- Each sample with its histogram's name and value, and the thread (for
-- samples on a thread track) and process that recorded it; samples on
-- other tracks are left out.
CREATE PERFETTO TABLE chrome_histograms(
  name STRING,
  value LONG,
  ts TIMESTAMP,
  thread_name STRING,
  utid LONG,
  tid LONG,
  process_name STRING,
  upid LONG,
  pid LONG
) AS
WITH samples AS (
  SELECT
    extract_arg(arg_set_id, 'chrome_histogram_sample.name') AS name,
    extract_arg(arg_set_id, 'chrome_histogram_sample.sample') AS value,
    ts,
    track_id
  FROM slice
  WHERE name = 'HistogramSample'
    AND category = 'disabled-by-default-histogram_samples'
)
SELECT
  samples.name, samples.value, samples.ts,
  thread.name AS thread_name, thread.utid, thread.tid,
  process.name AS process_name, process.upid, process.pid
FROM samples
JOIN thread_track ON thread_track.id = samples.track_id
JOIN thread USING (utid)
JOIN process USING (upid)
UNION ALL
SELECT
  samples.name, samples.value, samples.ts,
  NULL AS thread_name, NULL AS utid, NULL AS tid,
  process.name AS process_name, process.upid, process.pid
FROM samples
JOIN process_track ON process_track.id = samples.track_id
JOIN process USING (upid);
