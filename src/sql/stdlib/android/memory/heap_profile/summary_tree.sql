-- android.memory.heap_profile.summary_tree: the native heap profiles of
-- the trace (heap_profile_allocation) as one callstack tree.

INCLUDE PERFETTO MODULE android.memory.heap_profile.callstacks;

-- The allocations' part of the callstack forest with the bytes on each
-- node's callsite: self_size the net bytes (allocated less freed),
-- self_alloc_size the bytes allocated.
CREATE PERFETTO TABLE _android_heap_profile_raw_callstacks AS
SELECT id, parent_id, name, mapping_name, source_file, line_number, self_size,
  self_alloc_size
FROM _android_heap_profile_callstacks_for_allocations!((
  SELECT
    callsite_id,
    size,
    count,
    max(size, 0) AS alloc_size,
    max(count, 0) AS alloc_count
  FROM heap_profile_allocation
)) AS tree
ORDER BY tree.id;

-- Every callstack the heap profiles reach, all processes and dumps
-- together: self_size / self_alloc_size as on the node's callsite,
-- cumulative_size / cumulative_alloc_size summed over its subtree. As in
-- Perfetto, each inlined function of a callsite carries the callsite's
-- bytes, so a callsite of several functions counts them more than once in
-- the cumulative sums above it.
CREATE PERFETTO TABLE android_heap_profile_summary_tree(
  id LONG,
  parent_id LONG,
  name STRING,
  mapping_name STRING,
  source_file STRING,
  line_number LONG,
  self_size LONG,
  cumulative_size LONG,
  self_alloc_size LONG,
  cumulative_alloc_size LONG
) AS
WITH
  net AS MATERIALIZED (
    SELECT id, cumulative
    FROM __weft_tree_accumulate(
      (SELECT __weft_rows_agg(id, parent_id, self_size)
       FROM _android_heap_profile_raw_callstacks))
  ),
  alloc AS MATERIALIZED (
    SELECT id, cumulative
    FROM __weft_tree_accumulate(
      (SELECT __weft_rows_agg(id, parent_id, self_alloc_size)
       FROM _android_heap_profile_raw_callstacks))
  )
SELECT
  raw.id,
  raw.parent_id,
  raw.name,
  raw.mapping_name,
  raw.source_file,
  raw.line_number,
  raw.self_size,
  net.cumulative AS cumulative_size,
  raw.self_alloc_size,
  alloc.cumulative AS cumulative_alloc_size
FROM net
JOIN alloc USING (id)
JOIN _android_heap_profile_raw_callstacks AS raw USING (id)
ORDER BY raw.id;
