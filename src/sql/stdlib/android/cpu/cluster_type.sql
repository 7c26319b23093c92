-- android.cpu.cluster_type: little / medium / big names for the cpu
-- clusters (the cpu table's cluster_id, numbered from the smallest cores).

INCLUDE PERFETTO MODULE intervals.overlap;

-- The name of each cluster of a device with 2, 3 or 4 clusters.
CREATE PERFETTO TABLE _android_cluster_names(
  cluster_id LONG,
  cluster_type STRING,
  cluster_count LONG
) AS
SELECT column1 AS cluster_id, column2 AS cluster_type, column3 AS cluster_count
FROM (VALUES
  (0, 'little', 2), (1, 'big', 2),
  (0, 'little', 3), (1, 'medium', 3), (2, 'big', 3),
  (0, 'little', 4), (1, 'medium', 4), (2, 'medium', 4), (3, 'big', 4));

-- Each cpu's cluster type; NULL when the device has 1 or more than 4
-- clusters (counted over all cpus of the trace).
CREATE PERFETTO TABLE android_cpu_cluster_mapping(
  ucpu LONG,
  cpu LONG,
  cluster_type STRING
) AS
SELECT
  core.ucpu,
  core.cpu,
  named.cluster_type
FROM cpu AS core
LEFT JOIN _android_cluster_names AS named
  ON named.cluster_id = core.cluster_id
  AND named.cluster_count = (SELECT count(DISTINCT cluster_id) FROM cpu)
ORDER BY core.ucpu;

-- How many cpus of the clusters of type `cluster_type` run a task (not the
-- idle thread) from each ts to the next row's.
CREATE PERFETTO FUNCTION _active_cpu_count_for_cluster_type(
  cluster_type STRING
)
RETURNS TABLE(
  ts LONG,
  active_cpu_count LONG
) AS
SELECT ts, value AS active_cpu_count
FROM intervals_overlap_count!((
  SELECT run.ts, run.dur
  FROM sched AS run
  WHERE run.utid != 0
    AND run.ucpu IN (
      SELECT ucpu FROM android_cpu_cluster_mapping WHERE cluster_type = $cluster_type)
), ts, dur)
ORDER BY ts;
