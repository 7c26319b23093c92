-- chrome.speedometer_3: Speedometer 3 runs, from the performance marks
-- (category "blink.user_timing") the benchmark records: an
-- "iteration-<n>" slice per iteration and a "<suite>.<test>-sync" /
-- "-async" slice per measured step.

-- Speedometer 3's suites and tests.
CREATE PERFETTO TABLE _chrome_speedometer_3_test(
  suite_name STRING,
  test_name STRING
) AS
WITH t(suite_name, test_name) AS (VALUES
  ('TodoMVC-JavaScript-ES5', 'Adding100Items'),
  ('TodoMVC-JavaScript-ES5', 'CompletingAllItems'),
  ('TodoMVC-JavaScript-ES5', 'DeletingAllItems'),
  ('TodoMVC-JavaScript-ES6-Webpack-Complex-DOM', 'Adding100Items'),
  ('TodoMVC-JavaScript-ES6-Webpack-Complex-DOM', 'CompletingAllItems'),
  ('TodoMVC-JavaScript-ES6-Webpack-Complex-DOM', 'DeletingAllItems'),
  ('TodoMVC-WebComponents', 'Adding100Items'),
  ('TodoMVC-WebComponents', 'CompletingAllItems'),
  ('TodoMVC-WebComponents', 'DeletingAllItems'),
  ('TodoMVC-React-Complex-DOM', 'Adding100Items'),
  ('TodoMVC-React-Complex-DOM', 'CompletingAllItems'),
  ('TodoMVC-React-Complex-DOM', 'DeletingAllItems'),
  ('TodoMVC-React-Redux', 'Adding100Items'),
  ('TodoMVC-React-Redux', 'CompletingAllItems'),
  ('TodoMVC-React-Redux', 'DeletingAllItems'),
  ('TodoMVC-Backbone', 'Adding100Items'),
  ('TodoMVC-Backbone', 'CompletingAllItems'),
  ('TodoMVC-Backbone', 'DeletingAllItems'),
  ('TodoMVC-Angular-Complex-DOM', 'Adding100Items'),
  ('TodoMVC-Angular-Complex-DOM', 'CompletingAllItems'),
  ('TodoMVC-Angular-Complex-DOM', 'DeletingAllItems'),
  ('TodoMVC-Vue', 'Adding100Items'),
  ('TodoMVC-Vue', 'CompletingAllItems'),
  ('TodoMVC-Vue', 'DeletingAllItems'),
  ('TodoMVC-jQuery', 'Adding100Items'),
  ('TodoMVC-jQuery', 'CompletingAllItems'),
  ('TodoMVC-jQuery', 'DeletingAllItems'),
  ('TodoMVC-Preact-Complex-DOM', 'Adding100Items'),
  ('TodoMVC-Preact-Complex-DOM', 'CompletingAllItems'),
  ('TodoMVC-Preact-Complex-DOM', 'DeletingAllItems'),
  ('TodoMVC-Svelte-Complex-DOM', 'Adding100Items'),
  ('TodoMVC-Svelte-Complex-DOM', 'CompletingAllItems'),
  ('TodoMVC-Svelte-Complex-DOM', 'DeletingAllItems'),
  ('TodoMVC-Lit-Complex-DOM', 'Adding100Items'),
  ('TodoMVC-Lit-Complex-DOM', 'CompletingAllItems'),
  ('TodoMVC-Lit-Complex-DOM', 'DeletingAllItems'),
  ('NewsSite-Next', 'NavigateToUS'),
  ('NewsSite-Next', 'NavigateToWorld'),
  ('NewsSite-Next', 'NavigateToPolitics'),
  ('NewsSite-Nuxt', 'NavigateToUS'),
  ('NewsSite-Nuxt', 'NavigateToWorld'),
  ('NewsSite-Nuxt', 'NavigateToPolitics'),
  ('Editor-CodeMirror', 'Long'),
  ('Editor-CodeMirror', 'Highlight'),
  ('Editor-TipTap', 'Long'),
  ('Editor-TipTap', 'Highlight'),
  ('Charts-observable-plot', 'Stacked by 6'),
  ('Charts-observable-plot', 'Stacked by 20'),
  ('Charts-observable-plot', 'Dotted'),
  ('Charts-chartjs', 'Draw scatter'),
  ('Charts-chartjs', 'Show tooltip'),
  ('Charts-chartjs', 'Draw opaque scatter'),
  ('React-Stockcharts-SVG', 'Render'),
  ('React-Stockcharts-SVG', 'PanTheChart'),
  ('React-Stockcharts-SVG', 'ZoomTheChart'),
  ('Perf-Dashboard', 'Render'),
  ('Perf-Dashboard', 'SelectingPoints'),
  ('Perf-Dashboard', 'SelectingRange'))
SELECT suite_name, test_name FROM t;

-- The slice name of each measure: "<suite>.<test>-<sync|async>".
CREATE PERFETTO TABLE _chrome_speedometer_3_measure_name(
  name STRING,
  suite_name STRING,
  test_name STRING,
  measure_type STRING
) AS
SELECT
  t.suite_name || '.' || t.test_name || '-' || m.measure_type AS name,
  t.suite_name,
  t.test_name,
  m.measure_type
FROM _chrome_speedometer_3_test AS t
CROSS JOIN (SELECT 'sync' AS measure_type UNION ALL SELECT 'async') AS m;

-- Iteration marks: "iteration-<n>" where the text after the dash reads as
-- the integer n.
CREATE PERFETTO VIEW _chrome_speedometer_3_iteration_slice AS
WITH marks AS (
  SELECT *, substr(name, length('iteration-') + 1) AS number_text
  FROM slice
  WHERE category = 'blink.user_timing' AND name GLOB 'iteration-*'
)
SELECT *, CAST(number_text AS INT) AS iteration
FROM marks
WHERE number_text = CAST(number_text AS INT);

-- The measure slices, each in the iteration whose mark it starts within.
CREATE PERFETTO TABLE chrome_speedometer_3_measure(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  iteration LONG,
  suite_name STRING,
  test_name STRING,
  measure_type STRING
) AS
SELECT s.ts, s.dur, s.name, i.iteration, m.suite_name, m.test_name, m.measure_type
FROM slice AS s
JOIN _chrome_speedometer_3_measure_name AS m USING (name)
JOIN _chrome_speedometer_3_iteration_slice AS i
  ON s.ts >= i.ts AND s.ts < i.ts + i.dur
WHERE s.category = 'blink.user_timing'
ORDER BY s.ts;

-- Each iteration mark with the geometric mean over suites of their summed
-- measure durations (in ms) and its score, 1000 / that mean.
CREATE PERFETTO TABLE chrome_speedometer_3_iteration(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  iteration LONG,
  geomean DOUBLE,
  score DOUBLE
) AS
WITH
per_suite AS (
  SELECT iteration, sum(dur / 1e6) AS total_ms
  FROM chrome_speedometer_3_measure
  GROUP BY iteration, suite_name
),
per_iteration AS (
  SELECT iteration, exp(avg(ln(total_ms))) AS geomean
  FROM per_suite
  GROUP BY iteration
)
SELECT s.ts, s.dur, s.name, p.iteration, p.geomean, 1000.0 / p.geomean AS score
FROM per_iteration AS p
JOIN _chrome_speedometer_3_iteration_slice AS s USING (iteration);

-- The mean of the iterations' scores.
CREATE PERFETTO FUNCTION chrome_speedometer_3_score()
RETURNS DOUBLE AS
SELECT avg(score) FROM chrome_speedometer_3_iteration;

-- The thread whose track holds a "<suite>.<test>-<sync|async>-start" mark.
CREATE PERFETTO FUNCTION chrome_speedometer_3_renderer_main_utid()
RETURNS LONG AS
SELECT utid
FROM thread_track
WHERE id IN (
  SELECT s.track_id
  FROM slice AS s
  JOIN _chrome_speedometer_3_measure_name AS m ON s.name = m.name || '-start'
  WHERE s.category = 'blink.user_timing')
ORDER BY id
LIMIT 1;
