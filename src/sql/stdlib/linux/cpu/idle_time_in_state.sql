-- linux.cpu.idle_time_in_state: the share of time each cpu spent in each
-- sysfs cpuidle state, from the cumulative residency counters SysStats
-- reports (/sys/devices/system/cpu/cpu*/cpuidle/state*, in microseconds):
-- counter tracks of type cpu_idle_state with dimensions cpu and state.

INCLUDE PERFETTO MODULE time.conversion;

-- For rows (machine_id, cpu, state, ts, value) of cumulative residencies:
-- per sample after a (machine, cpu, state)'s first, the residency since the
-- previous sample (total_residency, us), the time between the two
-- (time_slice, us, truncated) and their ratio in percent; then per
-- (machine, cpu, sample time) a state "C0", the time in no idle state: the
-- time slice less the other states' residencies. Ordered by (machine, cpu,
-- state, ts), then the C0 rows by (ts, machine, cpu).
CREATE PERFETTO MACRO _linux_cpu_idle_residency(samples TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _lcir_steps AS (
      SELECT
        s.machine_id, s.cpu, s.state, s.ts,
        s.value - LAG(s.value) OVER w AS total_residency,
        time_to_us(s.ts - LAG(s.ts) OVER w) AS time_slice
      FROM $samples AS s
      WINDOW w AS (PARTITION BY s.machine_id, s.cpu, s.state ORDER BY s.ts)
    ),
    _lcir_states AS (
      SELECT * FROM _lcir_steps WHERE time_slice IS NOT NULL
    ),
    _lcir_active AS (
      SELECT
        machine_id, cpu, 'C0' AS state, ts,
        max(time_slice) - sum(total_residency) AS total_residency,
        max(time_slice) AS time_slice
      FROM _lcir_states
      GROUP BY machine_id, cpu, ts
    ),
    _lcir_all AS (
      SELECT 0 AS part, * FROM _lcir_states
      UNION ALL
      SELECT 1 AS part, * FROM _lcir_active
    )
  SELECT
    ts, machine_id, state, cpu,
    total_residency * 100.0 / time_slice AS idle_percentage,
    total_residency, time_slice
  FROM _lcir_all
  ORDER BY
    part,
    IIF(part = 0, machine_id, ts),
    IIF(part = 0, cpu, machine_id),
    IIF(part = 0, state, cpu),
    ts
);

-- The cpuidle residency samples of the trace.
CREATE PERFETTO VIEW _linux_cpu_idle_state_samples AS
SELECT
  t.machine_id,
  extract_arg(t.dimension_arg_set_id, 'cpu') AS cpu,
  extract_arg(t.dimension_arg_set_id, 'state') AS state,
  c.ts,
  c.value
FROM counter AS c
JOIN track AS t ON t.id = c.track_id
WHERE t.type = 'cpu_idle_state';

-- Percentage counter information for sysfs cpuidle states, per cpu: for
-- each state the residency between two samples divided by the time
-- between them (C0: the time in no idle state).
CREATE PERFETTO TABLE linux_per_cpu_idle_time_in_state_counters(
  ts TIMESTAMP,
  machine_id JOINID(machine.id),
  state STRING,
  cpu LONG,
  idle_percentage DOUBLE,
  total_residency DOUBLE,
  time_slice LONG
) AS
SELECT * FROM _linux_cpu_idle_residency!(_linux_cpu_idle_state_samples);

-- Rows of _linux_cpu_idle_residency! summed over the cpus of a machine,
-- per state and sample time; ordered by (ts, machine, state).
CREATE PERFETTO MACRO _linux_cpu_idle_all_cpus(per_cpu TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT
    ts,
    machine_id,
    state,
    sum(total_residency) * 100.0 / sum(time_slice) AS idle_percentage,
    sum(total_residency) AS total_residency,
    sum(time_slice) AS time_slice
  FROM $per_cpu
  GROUP BY ts, machine_id, state
  ORDER BY ts, machine_id, state
);

-- The same across all cpus of a machine: per state and sample time, the
-- residencies and time slices summed over the cpus.
CREATE PERFETTO TABLE linux_cpu_idle_time_in_state_counters(
  ts TIMESTAMP,
  machine_id JOINID(machine.id),
  state STRING,
  idle_percentage DOUBLE,
  total_residency DOUBLE,
  time_slice LONG
) AS
SELECT * FROM _linux_cpu_idle_all_cpus!(linux_per_cpu_idle_time_in_state_counters);
