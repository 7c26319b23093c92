-- std.gpu.context: the graphics contexts GPU render stage events used
-- (InternedGraphicsContext), one row per context id.

-- Graphics context ids with their process and API.
CREATE PERFETTO VIEW gpu_context(
  id ID,
  context_id LONG,
  pid LONG,
  api STRING
) AS
SELECT id, context_id, pid, api
FROM __intrinsic_gpu_context;
