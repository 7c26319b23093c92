-- graphs.partition: splitting a tree by a grouping key, computed by a C
-- operator (src/sql/stdlib_ops.h).

-- The tree `tree_table` (id, parent_id, group_key) cut into a forest where
-- each node's parent is its nearest ancestor with the same group_key (NULL
-- when it has none): id, parent_id, group_key. At most one node may have a
-- NULL parent_id (more is an error, as in the reference); a node whose
-- parent_id names no node is a root too.
CREATE PERFETTO MACRO tree_structural_partition_by_group(
  tree_table TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT part.id, part.parent_id, part.group_key
  FROM __weft_tree_partition(
    (SELECT __weft_rows_agg(node.id, node.parent_id, node.group_key)
     FROM $tree_table AS node)) AS part
);
