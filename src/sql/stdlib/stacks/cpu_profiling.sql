-- stacks.cpu_profiling: the samples of CPU profiling, whatever profiler
-- took them, and their callstacks as one tree.

INCLUDE PERFETTO MODULE callstacks.stack_profile;

-- The samples of stack_sample (StackSample packets, perf samples, Chrome,
-- V8, Gecko, simpleperf and Instruments samples) out of sessions whose
-- timebase is time, cycles or instructions, or unknown, or of no session,
-- with their thread and cpu. Ids are those of stack_sample.
CREATE PERFETTO TABLE cpu_profiling_samples(
  id LONG,
  ts TIMESTAMP,
  utid JOINID(thread.id),
  tid LONG,
  thread_name STRING,
  ucpu LONG,
  cpu LONG,
  callsite_id LONG,
  source STRING
) AS
WITH _cpu_profiling_sources AS (
  SELECT
    s.id,
    s.ts,
    s.utid,
    ec.ucpu,
    c.cpu,
    s.callsite_id,
    s.source
  FROM __intrinsic_stack_sample AS s
  LEFT JOIN __intrinsic_profiler_session AS ss ON ss.id = s.session_id
  LEFT JOIN __intrinsic_stack_sample_execution_context AS ec
    ON ec.id = s.execution_context_id
  LEFT JOIN cpu AS c ON c.id = ec.ucpu
  WHERE s.callsite_id IS NOT NULL
    AND (ss.timebase_unit IS NULL OR ss.timebase_unit IN ('ns', 'cycles', 'instructions'))
)
SELECT
  p.id,
  p.ts,
  p.utid,
  t.tid,
  t.name AS thread_name,
  p.ucpu,
  p.cpu,
  p.callsite_id,
  p.source
FROM _cpu_profiling_sources AS p
LEFT JOIN thread AS t USING (utid)
ORDER BY p.ts;

-- The CPU profiling samples' part of the callstack forest with their self
-- counts.
CREATE PERFETTO TABLE _cpu_profiling_self_callsites AS
SELECT *
FROM _callstacks_for_callsites!((SELECT callsite_id FROM cpu_profiling_samples)) AS tree
ORDER BY tree.id;

-- Every callstack the samples of cpu_profiling_samples reach, all
-- processes and profilers together: self_count counts the samples whose
-- innermost function is the node, cumulative_count the samples in its
-- subtree.
CREATE PERFETTO TABLE cpu_profiling_summary_tree(
  id LONG,
  parent_id LONG,
  name STRING,
  mapping_name STRING,
  source_file STRING,
  line_number LONG,
  self_count LONG,
  cumulative_count LONG
) AS
SELECT raw.*, acc.cumulative_count
FROM _cpu_profiling_self_callsites AS raw
JOIN _callstacks_self_to_cumulative!(_cpu_profiling_self_callsites) AS acc USING (id)
ORDER BY raw.id;
