-- chrome.speedometer: the Speedometer run of a trace, whichever version
-- (2.1 or 3) it is.

INCLUDE PERFETTO MODULE chrome.speedometer_2_1;
INCLUDE PERFETTO MODULE chrome.speedometer_3;

-- The version with more measures: '3' if Speedometer 3 has strictly more,
-- else '2.1'.
CREATE PERFETTO FUNCTION _chrome_speedometer_version()
RETURNS STRING AS
SELECT IIF((SELECT count() FROM chrome_speedometer_3_measure)
             > (SELECT count() FROM chrome_speedometer_2_1_measure),
           '3', '2.1');

-- The measures of the run's version.
CREATE PERFETTO TABLE chrome_speedometer_measure(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  iteration LONG,
  suite_name STRING,
  test_name STRING,
  measure_type STRING
) AS
SELECT ts, dur, name, iteration, suite_name, test_name, measure_type
FROM chrome_speedometer_2_1_measure
WHERE _chrome_speedometer_version() = '2.1'
UNION ALL
SELECT ts, dur, name, iteration, suite_name, test_name, measure_type
FROM chrome_speedometer_3_measure
WHERE _chrome_speedometer_version() = '3';

-- The iterations of the run's version.
CREATE PERFETTO TABLE chrome_speedometer_iteration(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  iteration LONG,
  geomean DOUBLE,
  score DOUBLE
) AS
SELECT ts, dur, name, iteration, geomean, score
FROM chrome_speedometer_2_1_iteration
WHERE _chrome_speedometer_version() = '2.1'
UNION ALL
SELECT ts, dur, name, iteration, geomean, score
FROM chrome_speedometer_3_iteration
WHERE _chrome_speedometer_version() = '3';

-- The score of the run's version.
CREATE PERFETTO FUNCTION chrome_speedometer_score()
RETURNS DOUBLE AS
SELECT IIF(_chrome_speedometer_version() = '3', chrome_speedometer_3_score(),
           chrome_speedometer_2_1_score());

-- The renderer main thread of the run's version.
CREATE PERFETTO FUNCTION chrome_speedometer_renderer_main_utid()
RETURNS LONG AS
SELECT IIF(_chrome_speedometer_version() = '3',
           chrome_speedometer_3_renderer_main_utid(),
           chrome_speedometer_2_1_renderer_main_utid());
