-- linux.threads: the kernel's own threads.

-- The threads of kthreadd (pid 2) and of the processes whose parent is
-- kthreadd, with their process; per machine, as each machine has its own
-- kthreadd.
CREATE PERFETTO TABLE linux_kernel_threads(
  upid JOINID(process.id),
  utid JOINID(thread.id),
  pid LONG,
  tid LONG,
  process_name STRING,
  thread_name STRING,
  machine_id JOINID(machine.id)
) AS
WITH _linux_kthread_procs AS (
  SELECT upid, pid, name, machine_id FROM process WHERE pid = 2
  UNION
  SELECT child.upid, child.pid, child.name, child.machine_id
  FROM process AS child
  JOIN process AS kthreadd ON child.parent_upid = kthreadd.upid
  WHERE kthreadd.pid = 2
)
SELECT
  p.upid,
  t.utid,
  p.pid,
  t.tid,
  p.name AS process_name,
  t.name AS thread_name,
  p.machine_id
FROM _linux_kthread_procs AS p
JOIN thread AS t USING (upid)
ORDER BY p.upid, t.utid;
