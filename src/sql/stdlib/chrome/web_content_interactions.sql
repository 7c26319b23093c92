-- chrome.web_content_interactions: discrete interactions with a page's
-- content (taps, clicks, typing, drags), from the renderer's
-- "Web Interaction" slices (InteractionToFirstPaint).

INCLUDE PERFETTO MODULE slices.with_context;

-- One row per "Web Interaction" process slice: its span, the interaction's
-- type and the renderer process it happened in.
CREATE PERFETTO TABLE chrome_web_content_interactions(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  interaction_type STRING,
  renderer_upid LONG
) AS
SELECT
  id,
  ts,
  dur,
  extract_arg(arg_set_id, 'web_content_interaction.type') AS interaction_type,
  upid AS renderer_upid
FROM process_slice
WHERE name = 'Web Interaction'
ORDER BY id;
