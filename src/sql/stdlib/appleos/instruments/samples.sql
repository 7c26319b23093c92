-- appleos.instruments.samples: the callstacks of Instruments time-profile
-- samples (instruments_sample) as one tree for the whole trace.

INCLUDE PERFETTO MODULE callstacks.stack_profile;

-- The Instruments samples' part of the callstack forest with their self
-- counts.
CREATE PERFETTO TABLE _appleos_instruments_raw_callstacks AS
SELECT *
FROM _callstacks_for_callsites!((SELECT callsite_id FROM instruments_sample)) AS tree
ORDER BY tree.id;

-- Every callstack the Instruments samples reach, all processes together:
-- self_count counts the samples whose innermost function is the node,
-- cumulative_count the samples in its subtree.
CREATE PERFETTO TABLE appleos_instruments_samples_summary_tree(
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
FROM _appleos_instruments_raw_callstacks AS raw
JOIN _callstacks_self_to_cumulative!(_appleos_instruments_raw_callstacks) AS acc
  USING (id)
ORDER BY raw.id;
