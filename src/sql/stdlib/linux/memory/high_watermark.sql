-- linux.memory.high_watermark: the highest RSS of each process so far.

INCLUDE PERFETTO MODULE linux.counter_runs;
INCLUDE PERFETTO MODULE linux.memory.process;

-- Per process, the running maximum of its RSS (anon + file + shared, missing
-- parts as 0) as intervals of constant value, the last one lasting to the end
-- of the trace.
CREATE PERFETTO TABLE _linux_mem_rss_high_watermark AS
SELECT i.ts, i.dur, i.track_id AS upid, cast(i.value AS INT) AS rss_high_watermark
FROM _linux_counter_leading_intervals!((
  SELECT
    0 AS id,
    ts,
    upid AS track_id,
    max(coalesce(anon_rss, 0) + coalesce(file_rss, 0) + coalesce(shmem_rss, 0))
      OVER (PARTITION BY upid ORDER BY ts) AS value
  FROM _linux_mem_rss_and_swap
)) AS i
ORDER BY i.track_id, i.ts;

-- The RSS high watermark of each process over time.
CREATE PERFETTO VIEW memory_rss_high_watermark_per_process(
  ts TIMESTAMP,
  dur DURATION,
  upid JOINID(process.id),
  pid LONG,
  process_name STRING,
  rss_high_watermark LONG
) AS
SELECT h.ts, h.dur, h.upid, p.pid, p.name AS process_name, h.rss_high_watermark
FROM _linux_mem_rss_high_watermark AS h
JOIN process AS p USING (upid);
