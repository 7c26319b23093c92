-- android.thread: thread names reduced to what threads of one kind share.

-- Standardizes an Android thread name by extracting its core identifier to
-- make it possible to aggregate by name: kernel workers are "kworker";
-- otherwise the name up to its first '-', then '[', ':' and ' ', with
-- number-like runs replaced by "<num>" ("RenderThread-1[123]" is
-- "RenderThread", "binder:5543_E" "binder", "hwuiTask1" "hwuiTask<num>").
CREATE PERFETTO FUNCTION android_standardize_thread_name(
  -- The full android thread name to be processed.
  thread_name STRING
)
-- Simplified name
RETURNS STRING AS
SELECT IIF(
  $thread_name GLOB 'kworker/*',
  'kworker',
  __intrinsic_strip_hex(
    str_split(str_split(str_split(str_split($thread_name, '-', 0), '[', 0), ':', 0), ' ', 0),
    1));
