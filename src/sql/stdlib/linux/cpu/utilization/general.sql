-- linux.cpu.utilization.general: what the cpu utilization modules share:
-- running time cut at frequency changes, and averages over fixed periods.

INCLUDE PERFETTO MODULE linux.cpu.frequency;

-- The running time of every non-idle thread, cut into pieces of constant cpu
-- frequency: one row per piece (ts, dur) of a finished sched slice (utid on
-- ucpu) with the frequency then in force on that cpu, NULL before the cpu's
-- first cpufreq sample.
--
-- Built by one ordered sweep per cpu over three kinds of points: frequency
-- samples, slice starts and slice ends. Every stretch between two consecutive
-- points takes the last frequency and the last slice seen so far, and is kept
-- when it lies inside that slice.
CREATE PERFETTO TABLE _linux_cpu_freq_per_thread(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  ucpu LONG,
  cpu LONG,
  utid JOINID(thread.id),
  freq LONG
) AS
WITH
  _linux_fpt_runs AS (
    SELECT ts, ts + dur AS ts_end, utid, ucpu
    FROM sched
    WHERE dur != -1
      AND utid NOT IN (SELECT utid FROM thread WHERE is_idle)
  ),
  _linux_fpt_points AS (
    SELECT ucpu, ts, 0 AS kind, freq, NULL AS utid, NULL AS ts_end
    FROM cpu_frequency_counters
    WHERE ucpu IN (SELECT ucpu FROM _linux_fpt_runs)
    UNION ALL
    SELECT ucpu, ts, 1, NULL, utid, ts_end FROM _linux_fpt_runs
    UNION ALL
    SELECT ucpu, ts_end, 2, NULL, NULL, NULL FROM _linux_fpt_runs
  ),
  _linux_fpt_numbered AS (
    SELECT
      *,
      count(freq) OVER _linux_fpt_order AS freq_seq,
      count(utid) OVER _linux_fpt_order AS run_seq,
      lead(ts) OVER _linux_fpt_order AS next_ts
    FROM _linux_fpt_points
    WINDOW _linux_fpt_order AS (
      PARTITION BY ucpu ORDER BY ts, kind, ts_end ROWS UNBOUNDED PRECEDING)
  ),
  _linux_fpt_carried AS (
    SELECT
      ucpu,
      ts,
      next_ts,
      first_value(freq) OVER (
        PARTITION BY ucpu, freq_seq ORDER BY ts, kind, ts_end) AS freq,
      first_value(utid) OVER (
        PARTITION BY ucpu, run_seq ORDER BY ts, kind, ts_end) AS utid,
      first_value(ts_end) OVER (
        PARTITION BY ucpu, run_seq ORDER BY ts, kind, ts_end) AS run_end
    FROM _linux_fpt_numbered
  )
SELECT
  row_number() OVER (ORDER BY p.ucpu, p.ts) - 1 AS id,
  p.ts,
  p.next_ts - p.ts AS dur,
  p.ucpu,
  c.cpu,
  p.utid,
  cast(p.freq AS INT) AS freq
FROM _linux_fpt_carried AS p
LEFT JOIN cpu AS c ON c.id = p.ucpu
WHERE p.utid IS NOT NULL AND p.next_ts > p.ts AND p.ts < p.run_end;

CREATE PERFETTO INDEX _linux_cpu_freq_per_thread_utid
ON _linux_cpu_freq_per_thread(utid);

-- Utilization per period of length `interval`, from the intervals (ts,
-- ts_end) of `runs`: each interval counts in the period where it starts,
-- cut at that period's end. Periods run from the one holding the trace's
-- start to the one holding its end, at most as many as the sched table has
-- rows. utilization divides by the number of cpus (the highest sched cpu + 1).
CREATE PERFETTO MACRO _linux_util_per_period(
  interval Expr,
  runs TableOrSubquery
)
RETURNS TableOrSubquery AS (
  WITH
    _linux_upp_first AS (
      SELECT
        ((start_ts) / ($interval)) * ($interval) AS first_ts,
        min(
          (((end_ts) / ($interval)) * ($interval)
            - ((start_ts) / ($interval)) * ($interval)) / ($interval) + 1,
          (SELECT count(*) FROM sched)) AS periods
      FROM trace_bounds
    ),
    _linux_upp_cut AS (
      SELECT
        ((r.ts) / ($interval)) * ($interval) AS period_ts,
        r.ts,
        r.ts_end
      FROM $runs AS r
    )
  SELECT
    c.period_ts AS ts,
    sum(min(c.ts_end, c.period_ts + ($interval)) - c.ts)
      / (cast(($interval) AS DOUBLE) * (SELECT max(cpu) + 1 FROM sched))
      AS utilization,
    sum(min(c.ts_end, c.period_ts + ($interval)) - c.ts)
      / cast(($interval) AS DOUBLE) AS unnormalized_utilization
  FROM _linux_upp_cut AS c, _linux_upp_first AS f
  WHERE c.period_ts >= f.first_ts
    AND c.period_ts < f.first_ts + f.periods * ($interval)
  GROUP BY c.period_ts
  ORDER BY c.period_ts
);

-- The pieces of _linux_cpu_freq_per_thread cut to [start_ts, start_ts +
-- span): id is the piece's id, ts and dur the part inside the interval.
CREATE PERFETTO FUNCTION _linux_cpu_freq_per_thread_in(
  start_ts LONG,
  span LONG
)
RETURNS TABLE(
  id LONG,
  ts LONG,
  dur LONG,
  ucpu LONG,
  cpu LONG,
  utid LONG,
  freq LONG
) AS
SELECT
  id,
  max(ts, $start_ts) AS ts,
  min(ts + dur, $start_ts + $span) - max(ts, $start_ts) AS dur,
  ucpu,
  cpu,
  utid,
  freq
FROM _linux_cpu_freq_per_thread
WHERE ts < $start_ts + $span AND ts + dur > $start_ts;
