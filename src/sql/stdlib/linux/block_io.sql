-- linux.block_io: block device IO operations in flight.

-- Per device, the number of IO operations queued or in the device: a row at
-- each timestamp where an operation (a block_io slice of that device's
-- track) starts or ends, with the count from there on. An unfinished
-- operation never ends. Devices of different machines are counted apart
-- (Perfetto adds up the same device number across machines).
CREATE PERFETTO VIEW linux_active_block_io_operations_by_device(
  ts LONG,
  ops_in_queue_or_device LONG,
  dev LONG
) AS
WITH
  _linux_bio_ops AS (
    SELECT
      s.ts,
      s.dur,
      t.machine_id,
      extract_arg(t.dimension_arg_set_id, 'block_device') AS dev
    FROM slice AS s
    JOIN track AS t ON t.id = s.track_id
    WHERE t.type = 'block_io'
  ),
  _linux_bio_edges AS (
    SELECT machine_id, dev, ts, 1 AS delta FROM _linux_bio_ops
    UNION ALL
    SELECT machine_id, dev, ts + dur, -1 FROM _linux_bio_ops WHERE dur != -1
  )
SELECT
  ts,
  sum(sum(delta)) OVER (PARTITION BY machine_id, dev ORDER BY ts)
    AS ops_in_queue_or_device,
  dev
FROM _linux_bio_edges
GROUP BY machine_id, dev, ts
ORDER BY ts, machine_id, dev;

-- The major number of a userland dev_t: bits 8 to 19.
CREATE PERFETTO FUNCTION linux_device_major_id(dev LONG)
RETURNS LONG AS
SELECT ($dev >> 8) & 4095;

-- The minor number of a userland dev_t: bits 0 to 7, then bits 20 and up.
CREATE PERFETTO FUNCTION linux_device_minor_id(dev LONG)
RETURNS LONG AS
SELECT ($dev & 255) | (($dev >> 20) << 8);
