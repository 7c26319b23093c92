-- Slice helpers every query sees.

-- Whether slice `ancestor_id` is a strict ancestor of slice
-- `descendant_id`: found by walking the descendant's parents. NULL when
-- either slice does not exist.
CREATE PERFETTO FUNCTION slice_is_ancestor(
  -- Id of the potential ancestor slice.
  ancestor_id LONG,
  -- Id of the potential descendant slice.
  descendant_id LONG
)
RETURNS BOOL AS
WITH RECURSIVE parents(id) AS (
  SELECT parent_id FROM slice WHERE id = $descendant_id
  UNION ALL
  SELECT s.parent_id FROM slice s JOIN parents p ON s.id = p.id
)
SELECT IIF(
  (SELECT count(*) FROM slice WHERE id IN ($ancestor_id, $descendant_id))
    < IIF($ancestor_id = $descendant_id, 1, 2),
  NULL,
  EXISTS (SELECT 1 FROM parents WHERE id = $ancestor_id));
