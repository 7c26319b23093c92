-- android.memory.heap_profile.intervals: each heap dump as an interval.

-- One row per (process, heap, dump time) of heap_profile_allocation: the
-- dump's interval ends at the dump and starts at its heap_profile window
-- start when that is earlier, else just after the previous dump of the
-- same process and heap (the trace start for the first), never after the
-- dump. id: the dump's first allocation row. delta: the net change of the
-- dump; allocated: what it added; retained: the sum of the callsites' net
-- growth (callsites that shrank count 0).
CREATE PERFETTO TABLE _android_heap_profile_intervals(
  id LONG,
  upid JOINID(process.id),
  heap_name STRING,
  ts TIMESTAMP,
  dur DURATION,
  retained LONG,
  allocated LONG,
  delta LONG
) AS
WITH
  _hpi_callsites AS (
    SELECT
      min(id) AS id,
      upid,
      heap_name,
      ts AS ts_end,
      sum(size) AS net,
      sum(iif(size > 0, size, 0)) AS added
    FROM heap_profile_allocation
    GROUP BY upid, heap_name, ts, callsite_id
  ),
  _hpi_dumps AS (
    SELECT
      min(c.id) AS id,
      c.upid,
      c.heap_name,
      c.ts_end,
      sum(max(c.net, 0)) AS retained,
      sum(c.added) AS allocated,
      sum(c.net) AS delta
    FROM _hpi_callsites AS c
    GROUP BY c.upid, c.heap_name, c.ts_end
  ),
  _hpi_starts AS (
    SELECT
      d.*,
      (
        SELECT min(hp.ts) FROM heap_profile AS hp
        WHERE hp.upid = d.upid AND hp.ts_end = d.ts_end
      ) AS window_start
    FROM _hpi_dumps AS d
  ),
  _hpi_bounded AS (
    SELECT
      *,
      iif(
        window_start < ts_end,
        window_start,
        min(
          lag(ts_end, 1, trace_start()) OVER (
            PARTITION BY upid, heap_name ORDER BY ts_end
          ) + 1,
          ts_end
        )
      ) AS start_ts
    FROM _hpi_starts
  )
SELECT
  id,
  upid,
  heap_name,
  start_ts AS ts,
  ts_end - start_ts AS dur,
  retained,
  allocated,
  delta
FROM _hpi_bounded
ORDER BY id;
