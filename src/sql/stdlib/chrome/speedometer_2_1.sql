-- chrome.speedometer_2_1: Speedometer 2.1 runs, from the performance marks
-- (category "blink.user_timing") "<suite>.<test>-start", "-sync-end" and
-- "-async-end" the benchmark records for each test of each iteration.

-- Speedometer 2.1's suites and tests.
CREATE PERFETTO TABLE _chrome_speedometer_2_1_test(
  suite_name STRING,
  test_name STRING
) AS
WITH t(suite_name, test_name) AS (VALUES
  ('Angular2-TypeScript-TodoMVC', 'Adding100Items'),
  ('Angular2-TypeScript-TodoMVC', 'CompletingAllItems'),
  ('Angular2-TypeScript-TodoMVC', 'DeletingItems'),
  ('AngularJS-TodoMVC', 'Adding100Items'),
  ('AngularJS-TodoMVC', 'CompletingAllItems'),
  ('AngularJS-TodoMVC', 'DeletingAllItems'),
  ('BackboneJS-TodoMVC', 'Adding100Items'),
  ('BackboneJS-TodoMVC', 'CompletingAllItems'),
  ('BackboneJS-TodoMVC', 'DeletingAllItems'),
  ('Elm-TodoMVC', 'Adding100Items'),
  ('Elm-TodoMVC', 'CompletingAllItems'),
  ('Elm-TodoMVC', 'DeletingItems'),
  ('EmberJS-Debug-TodoMVC', 'Adding100Items'),
  ('EmberJS-Debug-TodoMVC', 'CompletingAllItems'),
  ('EmberJS-Debug-TodoMVC', 'DeletingItems'),
  ('EmberJS-TodoMVC', 'Adding100Items'),
  ('EmberJS-TodoMVC', 'CompletingAllItems'),
  ('EmberJS-TodoMVC', 'DeletingItems'),
  ('Flight-TodoMVC', 'Adding100Items'),
  ('Flight-TodoMVC', 'CompletingAllItems'),
  ('Flight-TodoMVC', 'DeletingItems'),
  ('Inferno-TodoMVC', 'Adding100Items'),
  ('Inferno-TodoMVC', 'CompletingAllItems'),
  ('Inferno-TodoMVC', 'DeletingItems'),
  ('Preact-TodoMVC', 'Adding100Items'),
  ('Preact-TodoMVC', 'CompletingAllItems'),
  ('Preact-TodoMVC', 'DeletingItems'),
  ('React-Redux-TodoMVC', 'Adding100Items'),
  ('React-Redux-TodoMVC', 'CompletingAllItems'),
  ('React-Redux-TodoMVC', 'DeletingItems'),
  ('React-TodoMVC', 'Adding100Items'),
  ('React-TodoMVC', 'CompletingAllItems'),
  ('React-TodoMVC', 'DeletingAllItems'),
  ('Vanilla-ES2015-Babel-Webpack-TodoMVC', 'Adding100Items'),
  ('Vanilla-ES2015-Babel-Webpack-TodoMVC', 'CompletingAllItems'),
  ('Vanilla-ES2015-Babel-Webpack-TodoMVC', 'DeletingItems'),
  ('Vanilla-ES2015-TodoMVC', 'Adding100Items'),
  ('Vanilla-ES2015-TodoMVC', 'CompletingAllItems'),
  ('Vanilla-ES2015-TodoMVC', 'DeletingItems'),
  ('VanillaJS-TodoMVC', 'Adding100Items'),
  ('VanillaJS-TodoMVC', 'CompletingAllItems'),
  ('VanillaJS-TodoMVC', 'DeletingAllItems'),
  ('VueJS-TodoMVC', 'Adding100Items'),
  ('VueJS-TodoMVC', 'CompletingAllItems'),
  ('VueJS-TodoMVC', 'DeletingAllItems'),
  ('jQuery-TodoMVC', 'Adding100Items'),
  ('jQuery-TodoMVC', 'CompletingAllItems'),
  ('jQuery-TodoMVC', 'DeletingAllItems'))
SELECT suite_name, test_name FROM t;

-- The slice name of each mark: "<suite>.<test>-<start|sync-end|async-end>".
CREATE PERFETTO TABLE _chrome_speedometer_2_1_mark_name(
  name STRING,
  suite_name STRING,
  test_name STRING,
  mark_type STRING
) AS
SELECT
  t.suite_name || '.' || t.test_name || '-' || m.mark_type AS name,
  t.suite_name,
  t.test_name,
  m.mark_type
FROM _chrome_speedometer_2_1_test AS t
CROSS JOIN (SELECT 'start' AS mark_type UNION ALL SELECT 'sync-end'
            UNION ALL SELECT 'async-end') AS m;

-- Two measures per test and iteration: sync from its start mark to its
-- sync-end mark, async from there to its async-end mark. The n-th mark of
-- a name (by ts, equal times sharing a rank) belongs to iteration n; a test
-- whose iteration lacks one of its three marks has no measure.
CREATE PERFETTO TABLE chrome_speedometer_2_1_measure(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  iteration LONG,
  suite_name STRING,
  test_name STRING,
  measure_type STRING
) AS
WITH
marks AS (
  SELECT
    s.ts,
    rank() OVER (PARTITION BY s.name ORDER BY s.ts) AS iteration,
    m.suite_name,
    m.test_name
  FROM slice AS s
  JOIN _chrome_speedometer_2_1_mark_name AS m USING (name)
  WHERE s.category = 'blink.user_timing'
),
ordered AS (
  SELECT
    iteration, suite_name, test_name,
    lag(ts, 2) OVER w AS start_ts,
    lag(ts, 1) OVER w AS sync_end_ts,
    ts AS async_end_ts,
    count() OVER w AS seen
  FROM marks
  WINDOW w AS (PARTITION BY iteration, suite_name, test_name ORDER BY ts)
),
complete AS (SELECT * FROM ordered WHERE seen = 3),
measures AS (
  SELECT sync_end_ts AS ts, async_end_ts - sync_end_ts AS dur, iteration,
    suite_name, test_name, 'async' AS measure_type
  FROM complete
  UNION ALL
  SELECT start_ts AS ts, sync_end_ts - start_ts AS dur, iteration,
    suite_name, test_name, 'sync' AS measure_type
  FROM complete
)
SELECT ts, dur, suite_name || '.' || test_name || '-' || measure_type AS name,
  iteration, suite_name, test_name, measure_type
FROM measures;

-- One row per iteration, spanning its measures (Speedometer 2.1 marks no
-- iteration), with the geometric mean over suites of their summed measure
-- durations (in ms) and the score 1000 / mean * 60 / 3.
CREATE PERFETTO TABLE chrome_speedometer_2_1_iteration(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  iteration LONG,
  geomean DOUBLE,
  score DOUBLE
) AS
WITH per_suite AS (
  SELECT iteration, sum(dur / 1e6) AS total_ms, min(ts) AS first_ts,
    max(ts + dur) AS last_end
  FROM chrome_speedometer_2_1_measure
  GROUP BY suite_name, iteration
)
SELECT
  min(first_ts) AS ts,
  max(last_end) - min(first_ts) AS dur,
  'iteration-' || iteration AS name,
  iteration,
  exp(avg(ln(total_ms))) AS geomean,
  1000 / exp(avg(ln(total_ms))) * 60 / 3 AS score
FROM per_suite
GROUP BY iteration;

-- The mean of the iterations' scores.
CREATE PERFETTO FUNCTION chrome_speedometer_2_1_score()
RETURNS DOUBLE AS
SELECT avg(score) FROM chrome_speedometer_2_1_iteration;

-- The thread whose track holds a Speedometer 2.1 mark.
CREATE PERFETTO FUNCTION chrome_speedometer_2_1_renderer_main_utid()
RETURNS LONG AS
SELECT utid
FROM thread_track
WHERE id IN (
  SELECT s.track_id
  FROM slice AS s
  JOIN _chrome_speedometer_2_1_mark_name AS m USING (name)
  WHERE s.category = 'blink.user_timing')
ORDER BY id
LIMIT 1;
