-- android.frames.jank_type: which side a frame timeline's "Jank type" (a
-- comma-separated list of causes) blames. Each test looks for a cause
-- anywhere in the list, case-sensitively; NULL gives NULL.

-- Whether the jank type names a SurfaceFlinger cause: a missed CPU or GPU
-- deadline, scheduling, a prediction error or the display HAL.
CREATE PERFETTO FUNCTION android_is_sf_jank_type(jank_type STRING)
RETURNS BOOL AS
SELECT $jank_type GLOB '*SurfaceFlinger CPU Deadline Missed*'
  OR $jank_type GLOB '*SurfaceFlinger GPU Deadline Missed*'
  OR $jank_type GLOB '*SurfaceFlinger Scheduling*'
  OR $jank_type GLOB '*Prediction Error*'
  OR $jank_type GLOB '*Display HAL*';

-- Whether the jank type names the app missing its deadline.
CREATE PERFETTO FUNCTION android_is_app_jank_type(jank_type STRING)
RETURNS BOOL AS
SELECT $jank_type GLOB '*App Deadline Missed*';

-- Whether the frame was missed: SurfaceFlinger or app jank, or a dropped
-- frame.
CREATE PERFETTO FUNCTION android_is_missed_frame_type(jank_type STRING)
RETURNS BOOL AS
SELECT android_is_sf_jank_type($jank_type)
  OR android_is_app_jank_type($jank_type)
  OR $jank_type GLOB '*Dropped Frame*';
