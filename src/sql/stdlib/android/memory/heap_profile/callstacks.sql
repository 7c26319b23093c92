-- android.memory.heap_profile.callstacks: heap profile allocations on the
-- callstack forest of callstacks.stack_profile.

INCLUDE PERFETTO MODULE callstacks.stack_profile;

-- The tree of the allocation rows of `allocations` (callsite_id, size,
-- count, alloc_size, alloc_count): id, parent_id, name, mapping_name,
-- source_file, line_number and the sums self_size, self_count,
-- self_alloc_size, self_alloc_count of the rows on the node's callsite.
-- As in Perfetto, every node of a callsite carries the callsite's sums,
-- not only its innermost function.
CREATE PERFETTO MACRO _android_heap_profile_callstacks_for_allocations(
  allocations TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH _hp_sums AS MATERIALIZED (
    SELECT
      callsite_id,
      sum(size) AS self_size,
      sum(count) AS self_count,
      sum(alloc_size) AS self_alloc_size,
      sum(alloc_count) AS self_alloc_count
    FROM $allocations
    GROUP BY callsite_id
  )
  SELECT
    node.id,
    node.parent_id,
    node.name,
    node.mapping_name,
    node.source_file,
    node.line_number,
    coalesce(k.self_size, 0) AS self_size,
    coalesce(k.self_count, 0) AS self_count,
    coalesce(k.self_alloc_size, 0) AS self_alloc_size,
    coalesce(k.self_alloc_count, 0) AS self_alloc_count
  FROM _callstacks_for_stack_profile_samples!(_hp_sums) AS node
  LEFT JOIN _hp_sums AS k USING (callsite_id)
);
