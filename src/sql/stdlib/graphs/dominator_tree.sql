-- graphs.dominator_tree: the dominator tree of a flow graph, computed by a
-- C operator (src/sql/stdlib_ops.h).

-- For every node reachable from `root_node_id` over the edges
-- (source_node_id, dest_node_id) of `graph_table`: node_id and
-- dominator_node_id, its immediate dominator (NULL for the root). Rows come
-- in depth-first preorder from the root, children in edge order.
CREATE PERFETTO MACRO graph_dominator_tree(
  graph_table TableOrSubquery,
  root_node_id Expr
)
RETURNS TableOrSubquery AS
(
  SELECT tree.node_id, tree.dominator_node_id
  FROM __weft_graph_dominator_tree(
    (SELECT __weft_rows_agg(edge.source_node_id, edge.dest_node_id)
     FROM $graph_table AS edge),
    ($root_node_id)) AS tree
);
