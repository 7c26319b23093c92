-- callstacks.stack_profile: the callsites of stack_profile_callsite seen as
-- a forest of function nodes, and the macros that turn samples on callsites
-- into trees of self and cumulative counts (the summary trees of
-- linux.perf.samples, appleos.instruments.samples, stacks.cpu_profiling and
-- the Perfetto UI's flamegraphs, which call these private macros by name).
--
-- A callsite is one node per function it stands for: a frame symbolized
-- into a set of inlined functions is that many nodes, innermost first (the
-- set's first symbol), each the child of the next one; the outermost is the
-- child of the parent callsite's innermost node. A frame without symbols is
-- one node. Nodes are numbered from 0 by (callsite id, symbol id), so a
-- callsite's nodes are consecutive.

-- Each symbol set's first (innermost) and last (outermost) symbol.
CREATE PERFETTO TABLE _callstack_symbol_set_bounds AS
SELECT
  symbol_set_id,
  min(id) AS first_symbol_id,
  max(id) AS last_symbol_id
FROM stack_profile_symbol
WHERE symbol_set_id IS NOT NULL
GROUP BY symbol_set_id
ORDER BY symbol_set_id;

-- One row per (callsite, symbol of its frame), or per callsite when its
-- frame has no symbols, numbered in (callsite, symbol) order.
CREATE PERFETTO TABLE _callstack_spc_nodes AS
WITH expanded AS (
  SELECT
    c.id AS callsite_id,
    c.parent_id AS parent_callsite_id,
    c.frame_id,
    s.id AS symbol_id,
    s.id IS b.first_symbol_id AS is_innermost,
    s.id IS b.last_symbol_id AS is_outermost
  -- CROSS JOIN keeps callsites outside: frames are then found by id.
  FROM stack_profile_callsite AS c
  CROSS JOIN stack_profile_frame AS f ON f.id = c.frame_id
  LEFT JOIN _callstack_symbol_set_bounds AS b ON b.symbol_set_id = f.symbol_set_id
  LEFT JOIN stack_profile_symbol AS s
    ON s.id BETWEEN b.first_symbol_id AND b.last_symbol_id
    AND s.symbol_set_id = b.symbol_set_id
)
SELECT
  row_number() OVER (ORDER BY callsite_id, symbol_id) - 1 AS id,
  callsite_id,
  parent_callsite_id,
  frame_id,
  symbol_id,
  is_innermost,
  is_outermost
FROM expanded
ORDER BY id;

-- Each callsite's innermost node, which its children's outermost nodes hang
-- from.
CREATE PERFETTO TABLE _callstack_spc_innermost AS
SELECT callsite_id, id AS node_id
FROM _callstack_spc_nodes
WHERE is_innermost
ORDER BY callsite_id;

-- The forest: each node with its parent node, the function's name (a
-- symbol's name, else the frame's deobfuscated name, else the frame's name,
-- demangled when it is a mangled C++ name; 'unknown' when there is none),
-- its mapping and source position, and whether it is its callsite's
-- innermost function (the one a sample on the callsite counts for).
CREATE PERFETTO TABLE _callstack_spc_forest AS
SELECT
  n.id,
  iif(n.is_outermost, up.node_id, n.id + 1) AS parent_id,
  coalesce(
    demangle(coalesce(s.name, f.deobfuscated_name, f.name)),
    s.name,
    f.deobfuscated_name,
    f.name,
    'unknown'
  ) AS name,
  f.mapping AS mapping_id,
  s.source_file,
  s.line_number,
  s.inlined,
  n.callsite_id,
  n.is_innermost AS is_leaf_function_in_callsite_frame
FROM _callstack_spc_nodes AS n
CROSS JOIN stack_profile_frame AS f ON f.id = n.frame_id -- nodes outside, frames by id
LEFT JOIN stack_profile_symbol AS s ON s.id = n.symbol_id
LEFT JOIN _callstack_spc_innermost AS up ON up.callsite_id = n.parent_callsite_id
ORDER BY n.id;

CREATE PERFETTO INDEX _callstack_spc_forest_callsite_idx
ON _callstack_spc_forest(callsite_id);

-- The part of the forest the samples of `spc_samples` (a table or subquery
-- with a callsite_id column) reach: the innermost node of each sampled
-- callsite and all its ancestors, each once. Columns: id, parent_id,
-- callsite_id, name, mapping_name, source_file, line_number, inlined,
-- is_leaf_function_in_callsite_frame.
CREATE PERFETTO MACRO _callstacks_for_stack_profile_samples(
  spc_samples TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH RECURSIVE _cs_reached(id) AS (
    SELECT node.id
    FROM (SELECT DISTINCT sample.callsite_id FROM $spc_samples AS sample) AS site
    JOIN _callstack_spc_forest AS node ON node.callsite_id = site.callsite_id
    WHERE node.is_leaf_function_in_callsite_frame
    UNION
    SELECT node.parent_id
    FROM _cs_reached
    JOIN _callstack_spc_forest AS node ON node.id = _cs_reached.id
    WHERE node.parent_id IS NOT NULL
  )
  SELECT
    node.id,
    node.parent_id,
    node.callsite_id,
    node.name,
    m.name AS mapping_name,
    node.source_file,
    node.line_number,
    node.inlined,
    node.is_leaf_function_in_callsite_frame
  FROM _cs_reached
  JOIN _callstack_spc_forest AS node ON node.id = _cs_reached.id
  JOIN stack_profile_mapping AS m ON m.id = node.mapping_id
);

-- The tree of the samples of `samples` (a table or subquery with the
-- columns callsite_id and value, one row per sample): id, parent_id, name,
-- mapping_name, source_file, line_number and self_value, the sum of the
-- values of the samples whose callsite's innermost function is the node (0
-- for the other nodes).
CREATE PERFETTO MACRO _callstacks_for_callsites_weighted(
  samples TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH _cs_sums AS MATERIALIZED (
    SELECT callsite_id, sum(value) AS self_value
    FROM $samples
    GROUP BY callsite_id
  )
  SELECT
    node.id,
    node.parent_id,
    node.name,
    node.mapping_name,
    node.source_file,
    node.line_number,
    iif(node.is_leaf_function_in_callsite_frame, coalesce(k.self_value, 0), 0)
      AS self_value
  FROM _callstacks_for_stack_profile_samples!(_cs_sums) AS node
  LEFT JOIN _cs_sums AS k USING (callsite_id)
);

-- As _callstacks_for_callsites_weighted, each sample of `samples` (a
-- table or subquery with a callsite_id column) weighing 1: self_count is
-- the number of samples whose callsite's innermost function is the node.
CREATE PERFETTO MACRO _callstacks_for_callsites(samples TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT id, parent_id, name, mapping_name, source_file, line_number,
    self_value AS self_count
  FROM _callstacks_for_callsites_weighted!((SELECT callsite_id, 1 AS value FROM $samples))
);

-- For a tree `callstacks` (id, parent_id, self_count): id and
-- cumulative_count, the sum of self_count over the node and everything
-- under it. Computed once (materialized), so joining it costs no
-- recomputation per row.
CREATE PERFETTO MACRO _callstacks_self_to_cumulative(callstacks TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH _cs_cumulative AS MATERIALIZED (
    SELECT acc.id, acc.cumulative AS cumulative_count
    FROM __weft_tree_accumulate(
      (SELECT __weft_rows_agg(node.id, node.parent_id, node.self_count)
       FROM $callstacks AS node)) AS acc
  )
  SELECT id, cumulative_count FROM _cs_cumulative
);
