-- android.process_metadata: the package each process runs, from the
-- packages list (package_list) matched on the process's app id.
--
-- A process whose app id is used by one package runs that package; when
-- several share the app id (shared_uid), it runs the one whose name is the
-- longest prefix of the process's name, or none.

-- True for a kernel task: the idle process (pid 0), a process started by
-- it (init, kthreadd), or a process started by a process named kthreadd.
CREATE PERFETTO FUNCTION android_is_kernel_task(
  upid LONG
)
RETURNS BOOL AS
SELECT IFNULL((
  SELECT p.pid = 0 OR IFNULL(parent.pid = 0, 0) OR IFNULL(parent.name = 'kthreadd', 0)
  FROM process AS p
  LEFT JOIN process AS parent ON parent.upid = p.parent_upid
  WHERE p.upid = $upid
), 0);

CREATE PERFETTO TABLE android_process_metadata(
  upid JOINID(process.id),
  pid LONG,
  process_name STRING,
  uid LONG,
  user_id LONG,
  user_type STRING,
  shared_uid BOOL,
  package_name STRING,
  version_code LONG,
  debuggable LONG,
  is_kernel_task BOOL
) AS
WITH
  _apm_uid_packages AS (
    SELECT uid, COUNT(*) AS packages FROM package_list GROUP BY uid
  ),
  _apm_candidates AS (
    SELECT
      p.upid,
      pl.package_name,
      pl.version_code,
      pl.debuggable,
      ROW_NUMBER() OVER (
        PARTITION BY p.upid ORDER BY length(pl.package_name) DESC, pl.id
      ) AS rank
    FROM process AS p
    JOIN _apm_uid_packages AS u ON u.uid = p.android_appid
    JOIN package_list AS pl ON pl.uid = p.android_appid
    WHERE u.packages = 1
      OR substr(p.name, 1, length(pl.package_name)) = pl.package_name
  )
SELECT
  p.upid,
  p.pid,
  p.name AS process_name,
  p.android_appid AS uid,
  p.android_user_id AS user_id,
  NULL AS user_type,
  IIF(u.packages > 1, 1, NULL) AS shared_uid,
  c.package_name,
  c.version_code,
  c.debuggable,
  p.pid = 0 OR IFNULL(parent.pid = 0, 0) OR IFNULL(parent.name = 'kthreadd', 0)
    AS is_kernel_task
FROM process AS p
LEFT JOIN process AS parent ON parent.upid = p.parent_upid
LEFT JOIN _apm_uid_packages AS u ON u.uid = p.android_appid
LEFT JOIN _apm_candidates AS c ON c.upid = p.upid AND c.rank = 1
ORDER BY p.upid;
