-- slices.stack: names for slice stacks. A slice's stack_id is HASH of the
-- text "f(self)|f(root)|...|f(parent)" (itself, then its ancestors from
-- the root down), where f(x) is the decimal HASH of x's "category|name" (a
-- NULL category as ''): equal for slices with the same chain of
-- (category, name) up to their root, whatever their track.

INCLUDE PERFETTO MODULE slices.hierarchy;

-- Every slice with its stack_id and its parent's (0 without a parent).
-- Columns: id, ts, dur, track_id, category, name, depth, parent_id,
-- arg_set_id, thread_ts, thread_dur, thread_instruction_count,
-- thread_instruction_delta, stack_id, parent_stack_id. A plain view, bound
-- when read, as HASH comes with the C operators (src/sql/stdlib_ops.h).
CREATE VIEW slice_with_stack_id AS
WITH RECURSIVE up(id, own, next_id, path) AS (
  SELECT id, CAST(hash(coalesce(category, '') || '|' || name) AS TEXT),
    parent_id, NULL
  FROM slice
  UNION ALL
  SELECT up.id, up.own, above.parent_id,
    hash(coalesce(above.category, '') || '|' || above.name)
      || coalesce('|' || up.path, '')
  FROM up
  JOIN slice AS above ON above.id = up.next_id
),
stack AS (
  SELECT id, hash(own || coalesce('|' || path, '')) AS stack_id
  FROM up
  WHERE next_id IS NULL
)
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth,
  s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur,
  s.thread_instruction_count, s.thread_instruction_delta,
  own.stack_id, coalesce(up.stack_id, 0) AS parent_stack_id
FROM slice AS s
JOIN stack AS own ON own.id = s.id
LEFT JOIN stack AS up ON up.id = s.parent_id
ORDER BY s.id;

-- ancestor_slice_by_stack / descendant_slice_by_stack: CREATE PERFETTO
-- FUNCTION checks its body when the module runs, and these need HASH, which
-- comes with the C operators (sql_stdlib_ops_register, src/sql/stdlib_ops.h):
-- until that call is wired into the engine, the definitions below stay
-- commented out so that this module (and INCLUDE PERFETTO MODULE *) still
-- loads. Wiring the call: remove the leading "-- " of each line below.
--
-- -- The slices whose stack_id is `stack_hash` and all their ancestors, each
-- -- once, in ts order.
-- CREATE PERFETTO FUNCTION ancestor_slice_by_stack(stack_hash LONG)
-- RETURNS TABLE(
--   id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id),
--   category STRING, name STRING, depth LONG, parent_id JOINID(slice.id),
--   arg_set_id ARGSETID, thread_ts TIMESTAMP, thread_dur LONG
-- ) AS
-- SELECT DISTINCT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth,
--   s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
-- FROM slice_with_stack_id AS hit
-- JOIN _slice_ancestry AS a ON a.id = hit.id
-- JOIN slice AS s ON s.id = a.ancestor_id
-- WHERE hit.stack_id = $stack_hash
-- ORDER BY s.ts;
--
-- -- The slices whose stack_id is `stack_hash` and all their descendants,
-- -- each once, in ts order.
-- CREATE PERFETTO FUNCTION descendant_slice_by_stack(stack_hash LONG)
-- RETURNS TABLE(
--   id JOINID(slice.id), ts TIMESTAMP, dur DURATION, track_id JOINID(track.id),
--   category STRING, name STRING, depth LONG, parent_id JOINID(slice.id),
--   arg_set_id ARGSETID, thread_ts TIMESTAMP, thread_dur LONG
-- ) AS
-- SELECT DISTINCT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth,
--   s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
-- FROM slice_with_stack_id AS hit
-- JOIN _slice_ancestry AS a ON a.ancestor_id = hit.id
-- JOIN slice AS s ON s.id = a.id
-- WHERE hit.stack_id = $stack_hash
-- ORDER BY s.ts;
