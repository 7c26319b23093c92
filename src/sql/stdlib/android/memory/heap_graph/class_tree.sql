-- android.memory.heap_graph.class_tree: every heap dump's objects as a
-- shortest-path tree from its roots, and that tree aggregated by the
-- classes along each path.

INCLUDE PERFETTO MODULE graphs.search;

-- The references a walk from the roots follows: every non-NULL referent
-- but the referent of a weak, finalizer or phantom reference.
CREATE PERFETTO TABLE _heap_graph_walk_edges AS
SELECT r.owner_id AS source_node_id, r.owned_id AS dest_node_id
FROM heap_graph_reference AS r
JOIN heap_graph_object AS o ON o.id = r.owner_id
JOIN heap_graph_class AS c ON c.id = o.type_id
WHERE r.owned_id IS NOT NULL
  AND NOT (
    r.field_name = 'java.lang.ref.Reference.referent'
    AND c.kind IN (
      'KIND_WEAK_REFERENCE', 'KIND_FINALIZER_REFERENCE', 'KIND_PHANTOM_REFERENCE'
    )
  )
ORDER BY r.owner_id, r.owned_id;

-- Breadth first from the roots (by class name, then id): each reachable
-- object with the object it was first reached from (NULL for a root).
CREATE PERFETTO TABLE _heap_graph_object_min_depth_tree AS
SELECT node_id AS id, parent_node_id AS parent_id
FROM graph_reachable_bfs!(
  _heap_graph_walk_edges,
  (
    SELECT o.id AS node_id
    FROM heap_graph_object AS o
    JOIN heap_graph_class AS c ON c.id = o.type_id
    WHERE o.root_type IS NOT NULL
    ORDER BY c.name, o.id
  )
)
ORDER BY id;

-- Each tree object's class path: a root's is its dump, class, root type
-- and heap type; a child's extends its parent's by its class and heap type,
-- unless it has its parent's class (a chain of one class is one node).
CREATE PERFETTO TABLE _heap_graph_class_paths AS
WITH RECURSIVE
  node AS (
    SELECT
      t.id,
      t.parent_id,
      o.upid,
      o.graph_sample_ts,
      o.root_type,
      o.heap_type,
      coalesce(c.deobfuscated_name, c.name, '') AS name
    FROM _heap_graph_object_min_depth_tree AS t
    JOIN heap_graph_object AS o USING (id)
    JOIN heap_graph_class AS c ON c.id = o.type_id
  ),
  walk(id, name, path_hash, parent_path_hash) AS (
    SELECT
      id,
      name,
      hash(upid, graph_sample_ts, name, ifnull(root_type, ''), ifnull(heap_type, '')),
      NULL
    FROM node
    WHERE parent_id IS NULL
    UNION ALL
    SELECT
      n.id,
      n.name,
      iif(n.name = w.name, w.path_hash, hash(w.path_hash, n.name, ifnull(n.heap_type, ''))),
      iif(n.name = w.name, w.parent_path_hash, w.path_hash)
    FROM node AS n
    JOIN walk AS w ON n.parent_id = w.id
  )
SELECT id, path_hash, parent_path_hash FROM walk
ORDER BY id;

CREATE PERFETTO TABLE _heap_graph_class_nodes AS
WITH
  by_path AS (
    SELECT
      o.graph_sample_ts,
      o.upid,
      p.path_hash,
      p.parent_path_hash,
      coalesce(c.deobfuscated_name, c.name) AS name,
      o.root_type,
      o.heap_type,
      count() AS self_count,
      sum(o.self_size) AS self_size,
      sum(o.native_size > 0) AS native_count,
      sum(o.native_size) AS native_size
    FROM _heap_graph_class_paths AS p
    JOIN heap_graph_object AS o USING (id)
    JOIN heap_graph_class AS c ON c.id = o.type_id
    GROUP BY p.path_hash
  )
SELECT graph_sample_ts, upid, path_hash, parent_path_hash, name, root_type, heap_type,
  self_count, self_size
FROM by_path
UNION ALL
SELECT graph_sample_ts, upid, hash(path_hash, 'native', ''), path_hash,
  '[native] ' || name, root_type, 'HEAP_TYPE_NATIVE', native_count, native_size
FROM by_path
WHERE native_size > 0;

-- The class tree of every dump: one node per class path (objects of one
-- class reached through the same classes), with a "[native] <class>"
-- child for their native sizes. id: the node's rank by path hash.
CREATE PERFETTO TABLE _heap_graph_class_tree AS
WITH numbered AS (
  SELECT row_number() OVER (ORDER BY path_hash) - 1 AS id, *
  FROM _heap_graph_class_nodes
)
SELECT
  n.graph_sample_ts,
  n.upid,
  n.id,
  p.id AS parent_id,
  n.name,
  n.root_type,
  n.heap_type,
  n.self_count,
  n.self_size,
  n.path_hash AS path_hash_stable
FROM numbered AS n
LEFT JOIN numbered AS p ON p.path_hash = n.parent_path_hash
ORDER BY n.id;
