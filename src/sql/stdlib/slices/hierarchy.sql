-- slices.hierarchy: private helpers relating slices to the slices above
-- and below them on their track (no public names, as in Perfetto).

-- Every (slice, ancestor-or-self) pair: id, ancestor_id, and levels, how
-- many parent steps up (0 for the slice itself). Walks parent_id upwards,
-- each step a lookup by id: O(slices x depth).
CREATE PERFETTO VIEW _slice_ancestry(
  id LONG,
  ancestor_id LONG,
  levels LONG
) AS
WITH RECURSIVE up(id, ancestor_id, levels) AS (
  SELECT id, id, 0 FROM slice
  UNION ALL
  SELECT up.id, above.parent_id, up.levels + 1
  FROM up
  JOIN slice AS above ON above.id = up.ancestor_id
  WHERE above.parent_id IS NOT NULL
)
SELECT id, ancestor_id, levels FROM up;

-- The slice `slice_id` and its ancestors, root first.
CREATE PERFETTO FUNCTION _slice_ancestor_and_self(slice_id LONG)
RETURNS TABLE(
  id LONG, ts TIMESTAMP, dur DURATION, track_id LONG, category STRING,
  name STRING, depth LONG, parent_id LONG, arg_set_id LONG,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
WITH RECURSIVE chain(at) AS (
  SELECT $slice_id
  UNION ALL
  SELECT s.parent_id FROM chain JOIN slice AS s ON s.id = chain.at
  WHERE s.parent_id IS NOT NULL
)
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth,
  s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM chain JOIN slice AS s ON s.id = chain.at
ORDER BY s.depth;

-- The slice `slice_id` and every slice below it on its track (deeper, and
-- starting within it; for an unfinished slice, any time after its start),
-- in ts order.
CREATE PERFETTO FUNCTION _slice_descendant_and_self(slice_id LONG)
RETURNS TABLE(
  id LONG, ts TIMESTAMP, dur DURATION, track_id LONG, category STRING,
  name STRING, depth LONG, parent_id LONG, arg_set_id LONG,
  thread_ts TIMESTAMP, thread_dur LONG
) AS
SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth,
  s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
FROM slice AS top
JOIN slice AS s ON s.track_id = top.track_id
WHERE top.id = $slice_id
  AND (s.id = top.id OR (s.depth > top.depth AND s.ts >= top.ts
    AND (top.dur = -1 OR s.ts < top.ts + top.dur)))
ORDER BY s.ts, s.depth;
