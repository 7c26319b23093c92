-- android.cpu.cpu_per_uid: cpu time per uid and cluster (CpuPerUidData),
-- counter tracks of type android_cpu_per_uid whose value is the uid's
-- cumulative cpu time on the cluster in ms.

INCLUDE PERFETTO MODULE counters.intervals;

-- One row per uid and cluster track, with the cpu time it gained over the
-- trace (as the importer totals it) and a package of the uid (application
-- uids only; the first listed).
CREATE PERFETTO TABLE android_cpu_per_uid_track(
  id LONG,
  uid LONG,
  cluster LONG,
  total_cpu_millis LONG,
  package_name STRING
) AS
SELECT
  uid_track.track_id AS id,
  uid_track.uid,
  uid_track.cluster,
  uid_track.total_cpu_millis,
  (SELECT package.package_name FROM package_list AS package
   WHERE package.uid = uid_track.uid AND package.uid >= 10000
   LIMIT 1) AS package_name
FROM __intrinsic_android_cpu_per_uid_track AS uid_track
ORDER BY uid_track.track_id;

-- Per uid and cluster, the cpu time gained from each sample to the next
-- (samples of a run of equal values merged, as counter_leading_intervals!
-- does) and the cores' worth of cpu that makes.
CREATE PERFETTO VIEW android_cpu_per_uid_counter(
  id LONG,
  ts LONG,
  dur LONG,
  track_id LONG,
  diff_ms LONG,
  cpu_ratio DOUBLE
) AS
SELECT
  id,
  ts,
  dur,
  track_id,
  next_value - value AS diff_ms,
  (next_value - value) * 1e6 / dur AS cpu_ratio
FROM counter_leading_intervals!((
  SELECT sample.id, sample.ts, sample.track_id, sample.value
  FROM counter AS sample
  JOIN android_cpu_per_uid_track AS uid_track ON uid_track.id = sample.track_id
))
WHERE next_value IS NOT NULL;
