-- graphs.search: reachability walks over directed graphs, computed by the
-- C operators of src/sql/stdlib_ops.h. A node's out-edges are taken in the
-- order the graph table gives them.

-- Nodes reachable from `start_nodes` (column node_id) over the edges
-- (source_node_id, dest_node_id) of `graph_table`, depth first: node_id,
-- and parent_node_id, the node it was first reached from (NULL for a start
-- node). A node's children are walked in edge order; the start nodes from
-- the last given to the first.
CREATE PERFETTO MACRO graph_reachable_dfs(
  graph_table TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT walk.node_id, walk.parent_node_id
  FROM __weft_graph_dfs(
    (SELECT __weft_rows_agg(edge.source_node_id, edge.dest_node_id)
     FROM $graph_table AS edge),
    (SELECT __weft_rows_agg(start.node_id) FROM $start_nodes AS start)) AS walk
);

-- As graph_reachable_dfs, breadth first: the start nodes in order, then
-- each node as it is first discovered.
CREATE PERFETTO MACRO graph_reachable_bfs(
  graph_table TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT walk.node_id, walk.parent_node_id
  FROM __weft_graph_bfs(
    (SELECT __weft_rows_agg(edge.source_node_id, edge.dest_node_id)
     FROM $graph_table AS edge),
    (SELECT __weft_rows_agg(start.node_id) FROM $start_nodes AS start)) AS walk
);

-- For each node of `graph_table` (node_id, node_parent_id, sort_key), the
-- node after it among its parent's children in sort_key order (NULL for
-- the last); nodes without a parent count as one family.
CREATE PERFETTO MACRO graph_next_sibling(graph_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT node.node_id,
    lead(node.node_id) OVER (
      PARTITION BY node.node_parent_id ORDER BY node.sort_key
    ) AS next_node_id
  FROM $graph_table AS node
);

-- Depth-first walks from each root of `root_table` (root_node_id,
-- root_target_weight) over the weighted edges (source_node_id,
-- dest_node_id, edge_weight) of `graph_table`: root_node_id, node_id,
-- parent_node_id. A node's path weight is the sum of the edge weights from
-- its root; a root's walk ends at the first node whose path weight passes
-- the target, which is kept when `is_target_weight_floor` is true and left
-- out otherwise. Each root's walk is separate, so a node may be listed
-- under several roots.
CREATE PERFETTO MACRO graph_reachable_weight_bounded_dfs(
  graph_table TableOrSubquery,
  root_table TableOrSubquery,
  is_target_weight_floor Expr
)
RETURNS TableOrSubquery AS
(
  SELECT walk.root_node_id, walk.node_id, walk.parent_node_id
  FROM __weft_graph_weight_bounded_dfs(
    (SELECT __weft_rows_agg(edge.source_node_id, edge.dest_node_id, edge.edge_weight)
     FROM $graph_table AS edge),
    (SELECT __weft_rows_agg(root.root_node_id, root.root_target_weight)
     FROM $root_table AS root),
    ($is_target_weight_floor)) AS walk
);
