-- android.gpu.work_period: the tracks of the power/gpu_work_period ftrace
-- event (one per uid and gpu; type android_gpu_work_period, dimensions uid
-- and gpu). weft does not import that event yet, so the table is empty.

-- GPU work period tracks.
CREATE PERFETTO TABLE android_gpu_work_period_track(
  id LONG,
  machine_id JOINID(machine.id),
  uid LONG,
  ugpu LONG,
  gpu_id LONG
) AS
SELECT
  id,
  machine_id,
  extract_arg(dimension_arg_set_id, 'uid') AS uid,
  extract_arg(dimension_arg_set_id, 'ugpu') AS ugpu,
  extract_arg(dimension_arg_set_id, 'gpu') AS gpu_id
FROM track
WHERE type = 'android_gpu_work_period'
ORDER BY id;
