-- chrome.interactions: Chrome's critical user interactions of every kind
-- (page loads, startups, web content interactions) in one table.

INCLUDE PERFETTO MODULE chrome.page_loads;
INCLUDE PERFETTO MODULE chrome.startups;
INCLUDE PERFETTO MODULE chrome.web_content_interactions;

-- Each interaction: its id within the table of its type (named by `type`),
-- a name, and its span: a page load lasts to its largest contentful paint
-- (else its first), a startup to its first visible content (else 0).
CREATE PERFETTO TABLE chrome_interactions(
  scoped_id LONG,
  type STRING,
  name STRING,
  ts TIMESTAMP,
  dur DURATION
) AS
SELECT
  id AS scoped_id,
  'chrome_page_loads' AS type,
  'PageLoad' AS name,
  navigation_start_ts AS ts,
  coalesce(lcp, fcp) AS dur
FROM chrome_page_loads
UNION ALL
SELECT
  id AS scoped_id,
  'chrome_startups' AS type,
  name,
  startup_begin_ts AS ts,
  IIF(first_visible_content_ts IS NULL, 0,
      first_visible_content_ts - startup_begin_ts) AS dur
FROM chrome_startups
UNION ALL
SELECT
  id AS scoped_id,
  'chrome_web_content_interactions' AS type,
  'InteractionToFirstPaint' AS name,
  ts,
  dur
FROM chrome_web_content_interactions;
