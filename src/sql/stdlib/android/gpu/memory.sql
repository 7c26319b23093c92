-- android.gpu.memory: the gpu memory each process holds, from its "GPU
-- Memory" process counter track (gpu_mem_total events with a pid).

-- GPU memory per process: a sample lasts until the next one of its track,
-- the last one until the process's end (the trace's end while it lives)
-- plus 1 ns, as Perfetto's per-process counters do.
CREATE PERFETTO TABLE android_gpu_memory_per_process(
  ts TIMESTAMP,
  dur DURATION,
  upid JOINID(process.id),
  gpu_memory LONG
) AS
SELECT
  sample.ts,
  coalesce(
    lead(sample.ts) OVER (PARTITION BY sample.track_id ORDER BY sample.ts),
    (SELECT coalesce(owner.end_ts, trace_end()) FROM process AS owner
     WHERE owner.upid = memory_track.upid) + 1
  ) - sample.ts AS dur,
  memory_track.upid,
  CAST(sample.value AS INT) AS gpu_memory
FROM counter AS sample
JOIN process_counter_track AS memory_track ON memory_track.id = sample.track_id
WHERE memory_track.name = 'GPU Memory' AND memory_track.upid IS NOT NULL
ORDER BY memory_track.id, sample.ts;
