-- traced.stats: timings of traced's clone operation (a snapshot of a
-- running trace), from the stats its service events set.

-- For each cloned buffer of a (machine, trace): the time from the stat
-- `start_stat` (when it is not 0) to the buffer's clone being done.
CREATE PERFETTO MACRO _traced_clone_latency_since(start_stat Expr)
RETURNS TableOrSubquery AS
(
  SELECT
    done.idx AS buffer_id,
    done.value - start.value AS duration_ns,
    done.machine_id,
    done.trace_id
  FROM stats AS done
  JOIN stats AS start
    ON start.name = $start_stat
    AND done.machine_id IS start.machine_id
    AND done.trace_id IS start.trace_id
  WHERE done.name = 'traced_buf_clone_done_timestamp_ns'
    AND start.value != 0
  ORDER BY done.machine_id, done.trace_id, done.idx
);

-- Per buffer: from the start of the clone to the end of the buffer's flush.
CREATE PERFETTO TABLE traced_clone_flush_latency(
  buffer_id LONG,
  duration_ns LONG,
  machine_id JOINID(machine.id),
  trace_id LONG
) AS
SELECT * FROM _traced_clone_latency_since!('traced_clone_started_timestamp_ns');

-- Per buffer: from the trigger that asked for the clone to the end of the
-- buffer's flush.
CREATE PERFETTO TABLE traced_trigger_clone_flush_latency(
  buffer_id LONG,
  duration_ns LONG,
  machine_id JOINID(machine.id),
  trace_id LONG
) AS
SELECT * FROM _traced_clone_latency_since!('traced_clone_trigger_timestamp_ns');
