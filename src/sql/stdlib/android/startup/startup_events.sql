-- android.startup.startup_events: the "launching: <package>" async slices
-- system_server emits for each activity launch.

INCLUDE PERFETTO MODULE slices.with_context;

-- One row per launch event: its span and the package it names (the text
-- after "launching: ", up to a further ": " if any). Only slices of
-- system_server's process (or of a process with no name) count.
CREATE PERFETTO TABLE _startup_events(
  ts TIMESTAMP,
  dur DURATION,
  ts_end TIMESTAMP,
  package_name STRING
) AS
WITH launches AS (
  SELECT ps.ts, ps.dur, substr(ps.name, length('launching: ') + 1) AS rest
  FROM process_slice AS ps
  WHERE ps.name GLOB 'launching: *'
    AND (ps.process_name IS NULL OR ps.process_name = 'system_server')
)
SELECT
  ts,
  dur,
  ts + dur AS ts_end,
  IIF(instr(rest, ': ') > 0, substr(rest, 1, instr(rest, ': ') - 1), rest) AS package_name
FROM launches;
