-- slices.self_dur: a slice's own time, its dur minus the durs of its direct
-- children. Durations are taken as stored: an unfinished slice (dur -1)
-- counts as -1 on either side of the subtraction.

CREATE PERFETTO TABLE slice_self_dur(
  id ID(slice.id),
  self_dur DURATION
) AS
WITH child_total AS (
  SELECT parent_id AS id, sum(dur) AS total
  FROM slice
  WHERE parent_id IS NOT NULL
  GROUP BY parent_id
)
SELECT s.id, s.dur - coalesce(c.total, 0) AS self_dur
FROM slice s
LEFT JOIN child_total c USING (id)
ORDER BY s.id;
