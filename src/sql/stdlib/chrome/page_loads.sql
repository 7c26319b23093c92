-- chrome.page_loads: Chrome's page loads and their loading metrics, from the
-- PageLoadMetrics.* slices the browser process records per navigation.

INCLUDE PERFETTO MODULE slices.with_context;

-- Process-scoped PageLoadMetrics slices: their span, the navigation and the
-- browser process they belong to.
CREATE PERFETTO TABLE _chrome_page_load_events(
  name STRING,
  ts TIMESTAMP,
  dur LONG,
  navigation_id LONG,
  url STRING,
  browser_upid LONG
) AS
SELECT
  name,
  ts,
  dur,
  extract_arg(arg_set_id, 'page_load.navigation_id') AS navigation_id,
  extract_arg(arg_set_id, 'page_load.url') AS url,
  upid AS browser_upid
FROM process_slice
WHERE name GLOB 'PageLoadMetrics.*'
ORDER BY ts;

-- The metric events of one name, for joining to a navigation.
CREATE PERFETTO FUNCTION _chrome_page_load_metric(event_name STRING)
RETURNS TABLE(
  ts TIMESTAMP,
  dur LONG,
  navigation_id LONG,
  browser_upid LONG
) AS
SELECT ts, dur, navigation_id, browser_upid
FROM _chrome_page_load_events
WHERE name = $event_name;

-- One row per first-contentful-paint event (each starts at its
-- navigation's start), with the other metrics of the same navigation and
-- browser process; a metric recorded twice gives a row for each.
CREATE PERFETTO TABLE chrome_page_loads(
  id LONG,
  navigation_id LONG,
  navigation_start_ts TIMESTAMP,
  fcp LONG,
  fcp_ts TIMESTAMP,
  lcp LONG,
  lcp_ts TIMESTAMP,
  dom_content_loaded_event_ts TIMESTAMP,
  load_event_ts TIMESTAMP,
  mark_fully_loaded_ts TIMESTAMP,
  mark_fully_visible_ts TIMESTAMP,
  mark_interactive_ts TIMESTAMP,
  url STRING,
  browser_upid LONG
) AS
WITH fcp AS (
  SELECT ts, dur, navigation_id, url, browser_upid
  FROM _chrome_page_load_events
  WHERE name = 'PageLoadMetrics.NavigationToFirstContentfulPaint'
)
SELECT
  row_number() OVER (ORDER BY fcp.ts) AS id,
  fcp.navigation_id,
  fcp.ts AS navigation_start_ts,
  fcp.dur AS fcp,
  fcp.ts + fcp.dur AS fcp_ts,
  lcp.dur AS lcp,
  lcp.ts + lcp.dur AS lcp_ts,
  dcl.ts AS dom_content_loaded_event_ts,
  onload.ts AS load_event_ts,
  fully_loaded.ts AS mark_fully_loaded_ts,
  fully_visible.ts AS mark_fully_visible_ts,
  interactive.ts AS mark_interactive_ts,
  fcp.url,
  fcp.browser_upid
FROM fcp
LEFT JOIN _chrome_page_load_metric('PageLoadMetrics.NavigationToLargestContentfulPaint') AS lcp
  USING (navigation_id, browser_upid)
LEFT JOIN _chrome_page_load_metric('PageLoadMetrics.NavigationToDOMContentLoadedEventFired') AS dcl
  USING (navigation_id, browser_upid)
LEFT JOIN _chrome_page_load_metric('PageLoadMetrics.NavigationToMainFrameOnLoad') AS onload
  USING (navigation_id, browser_upid)
LEFT JOIN _chrome_page_load_metric('PageLoadMetrics.UserTimingMarkFullyLoaded') AS fully_loaded
  USING (navigation_id, browser_upid)
LEFT JOIN _chrome_page_load_metric('PageLoadMetrics.UserTimingMarkFullyVisible') AS fully_visible
  USING (navigation_id, browser_upid)
LEFT JOIN _chrome_page_load_metric('PageLoadMetrics.UserTimingMarkInteractive') AS interactive
  USING (navigation_id, browser_upid);
