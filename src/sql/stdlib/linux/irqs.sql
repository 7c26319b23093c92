-- linux.irqs: hard and soft interrupts, which the importers write as slices
-- on per-cpu tracks of type cpu_irq and cpu_softirq.

-- Hard IRQs; parent_id is the IRQ this one interrupted, if any.
CREATE PERFETTO VIEW linux_hard_irqs(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  id JOINID(slice.id),
  parent_id JOINID(slice.id)
) AS
SELECT s.ts, s.dur, s.name, s.id, s.parent_id
FROM slice AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.type = 'cpu_irq';

-- Soft IRQs.
CREATE PERFETTO VIEW linux_soft_irqs(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  id JOINID(slice.id)
) AS
SELECT s.ts, s.dur, s.name, s.id
FROM slice AS s
JOIN track AS t ON t.id = s.track_id
WHERE t.type = 'cpu_softirq';

-- Hard IRQs, then soft IRQs (whose parent_id is always NULL).
CREATE PERFETTO VIEW linux_irqs(
  ts TIMESTAMP,
  dur DURATION,
  name STRING,
  id JOINID(slice.id),
  parent_id JOINID(slice.id),
  is_soft_irq BOOL
) AS
SELECT ts, dur, name, id, parent_id, 0 AS is_soft_irq FROM linux_hard_irqs
UNION ALL
SELECT ts, dur, name, id, NULL AS parent_id, 1 AS is_soft_irq
FROM linux_soft_irqs;
