-- linux.perf.samples: the callstacks of perf samples (perf_sample: Linux
-- perf and traced_perf) as one tree for the whole trace.

INCLUDE PERFETTO MODULE callstacks.stack_profile;

-- The perf samples' part of the callstack forest with their self counts.
CREATE PERFETTO TABLE _linux_perf_raw_callstacks AS
SELECT *
FROM _callstacks_for_callsites!((SELECT callsite_id FROM perf_sample)) AS tree
ORDER BY tree.id;

-- Every callstack the perf samples reach, all processes together: a node
-- is a function under its chain of callers; self_count counts the samples
-- whose innermost function it is, cumulative_count the samples in its
-- subtree.
CREATE PERFETTO TABLE linux_perf_samples_summary_tree(
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
FROM _linux_perf_raw_callstacks AS raw
JOIN _callstacks_self_to_cumulative!(_linux_perf_raw_callstacks) AS acc USING (id)
ORDER BY raw.id;
