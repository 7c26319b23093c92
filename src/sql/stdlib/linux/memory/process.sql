-- linux.memory.process: per-process RSS and swap over time.

-- Each sample of a process's mem.rss.anon, mem.rss.file, mem.rss.shmem and
-- mem.swap counters lasts until the next sample of the same counter; the last
-- one until the process's end (or the trace's end when it has none), plus 1.
CREATE PERFETTO TABLE _linux_mem_samples AS
SELECT
  t.upid,
  t.name,
  c.ts,
  lead(c.ts, 1, coalesce(
      (SELECT end_ts FROM process AS p WHERE p.upid = t.upid),
      (SELECT end_ts FROM trace_bounds)) + 1)
    OVER (PARTITION BY c.track_id ORDER BY c.ts) AS ts_end,
  cast(c.value AS INT) AS value
FROM counter AS c
JOIN process_counter_track AS t ON t.id = c.track_id
WHERE t.upid IS NOT NULL
  AND t.name IN ('mem.rss.anon', 'mem.rss.file', 'mem.rss.shmem', 'mem.swap');

CREATE PERFETTO INDEX _linux_mem_samples_key
ON _linux_mem_samples(upid, name, ts);

-- The stretches between consecutive sample boundaries of a process (starts
-- and ends of its samples) during which at least one counter has a value,
-- with each counter's value then (NULL when it has none).
CREATE PERFETTO TABLE _linux_mem_rss_and_swap AS
WITH
  _linux_mem_points AS (
    SELECT upid, ts FROM _linux_mem_samples
    UNION
    SELECT upid, ts_end FROM _linux_mem_samples
  ),
  _linux_mem_stretches AS (
    SELECT
      upid,
      ts,
      lead(ts) OVER (PARTITION BY upid ORDER BY ts) AS ts_end
    FROM _linux_mem_points
  ),
  _linux_mem_values AS (
    SELECT
      st.upid,
      st.ts,
      st.ts_end - st.ts AS dur,
      (SELECT iif(s.ts_end > st.ts, s.value, NULL) FROM _linux_mem_samples AS s
        WHERE s.upid = st.upid AND s.name = 'mem.rss.anon' AND s.ts <= st.ts
        ORDER BY s.ts DESC LIMIT 1) AS anon_rss,
      (SELECT iif(s.ts_end > st.ts, s.value, NULL) FROM _linux_mem_samples AS s
        WHERE s.upid = st.upid AND s.name = 'mem.rss.file' AND s.ts <= st.ts
        ORDER BY s.ts DESC LIMIT 1) AS file_rss,
      (SELECT iif(s.ts_end > st.ts, s.value, NULL) FROM _linux_mem_samples AS s
        WHERE s.upid = st.upid AND s.name = 'mem.rss.shmem' AND s.ts <= st.ts
        ORDER BY s.ts DESC LIMIT 1) AS shmem_rss,
      (SELECT iif(s.ts_end > st.ts, s.value, NULL) FROM _linux_mem_samples AS s
        WHERE s.upid = st.upid AND s.name = 'mem.swap' AND s.ts <= st.ts
        ORDER BY s.ts DESC LIMIT 1) AS swap
    FROM _linux_mem_stretches AS st
    WHERE st.ts_end IS NOT NULL
  )
SELECT * FROM _linux_mem_values
WHERE coalesce(anon_rss, file_rss, shmem_rss, swap) IS NOT NULL
ORDER BY upid, ts;

-- Per process and stretch of constant counters, its RSS parts and swap (in
-- bytes). rss adds anon and file RSS and the shared RSS (missing shared RSS
-- counts as 0); the sums with swap count missing swap as 0.
CREATE PERFETTO VIEW memory_rss_and_swap_per_process(
  ts TIMESTAMP,
  dur DURATION,
  upid JOINID(process.id),
  pid LONG,
  process_name STRING,
  anon_rss LONG,
  file_rss LONG,
  shmem_rss LONG,
  rss LONG,
  swap LONG,
  anon_rss_and_swap LONG,
  rss_and_swap LONG
) AS
SELECT
  m.ts,
  m.dur,
  m.upid,
  p.pid,
  p.name AS process_name,
  m.anon_rss,
  m.file_rss,
  m.shmem_rss,
  m.anon_rss + m.file_rss + coalesce(m.shmem_rss, 0) AS rss,
  m.swap,
  m.anon_rss + coalesce(m.swap, 0) AS anon_rss_and_swap,
  m.anon_rss + m.file_rss + coalesce(m.shmem_rss, 0) + coalesce(m.swap, 0)
    AS rss_and_swap
FROM _linux_mem_rss_and_swap AS m
JOIN process AS p USING (upid);
