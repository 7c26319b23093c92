-- android.memory.heap_graph.class_summary_tree: the class tree of every
-- heap dump with cumulative counts and sizes.

INCLUDE PERFETTO MODULE android.memory.heap_graph.class_tree;

-- Every class tree node with each of its ancestors (itself included).
CREATE PERFETTO TABLE _heap_graph_class_tree_ancestors AS
WITH RECURSIVE up(id, ancestor_id) AS (
  SELECT id, id FROM _heap_graph_class_tree
  UNION ALL
  SELECT u.id, t.parent_id
  FROM up AS u
  JOIN _heap_graph_class_tree AS t ON t.id = u.ancestor_id
  WHERE t.parent_id IS NOT NULL
)
SELECT id, ancestor_id FROM up;

-- All the Android heap graphs of the trace as shortest-path trees
-- aggregated by class: a node per class path, cumulative values summed over
-- the node and its descendants.
CREATE PERFETTO TABLE android_heap_graph_class_summary_tree(
  -- The timestamp the heap graph was dumped at.
  graph_sample_ts TIMESTAMP,
  -- The upid of the process.
  upid JOINID(process.id),
  -- The id of the node in the class tree.
  id LONG,
  -- The parent id of the node in the class tree or NULL if this is the root.
  parent_id LONG,
  -- The name of the class.
  name STRING,
  -- The type of Java root if this node is a root, else NULL.
  root_type STRING,
  -- The count of objects with the same class name and path to the root.
  self_count LONG,
  -- The size of objects with the same class name and path to the root.
  self_size LONG,
  -- The sum of `self_count` of this node and all its descendants.
  cumulative_count LONG,
  -- The sum of `self_size` of this node and all its descendants.
  cumulative_size LONG
) AS
WITH totals AS (
  SELECT a.ancestor_id AS id, sum(t.self_count) AS cumulative_count,
    sum(t.self_size) AS cumulative_size
  FROM _heap_graph_class_tree_ancestors AS a
  JOIN _heap_graph_class_tree AS t ON t.id = a.id
  GROUP BY a.ancestor_id
)
SELECT
  t.graph_sample_ts,
  t.upid,
  t.id,
  t.parent_id,
  t.name,
  t.root_type,
  t.self_count,
  t.self_size,
  s.cumulative_count,
  s.cumulative_size
FROM _heap_graph_class_tree AS t
JOIN totals AS s USING (id)
ORDER BY t.id;
