-- stacks.cpu_profiling: the samples of CPU profiling, whatever profiler
-- took them.

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
