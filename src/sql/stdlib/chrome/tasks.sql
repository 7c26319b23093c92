-- chrome.tasks: Chrome's top-level units of work (scheduler tasks, mojo
-- messages, Java view work, other "toplevel" slices), named after what they
-- ran.

-- "file:function" of the PostTask site a scheduler task carries in its args
-- (NULL when either part is missing).
CREATE PERFETTO FUNCTION _chrome_task_posted_from(arg_set_id LONG)
RETURNS STRING AS
SELECT extract_arg($arg_set_id, 'task.posted_from.file_name') || ':'
  || extract_arg($arg_set_id, 'task.posted_from.function_name');

-- 1 when a category is Java's own (has "Java", lacks "toplevel").
CREATE PERFETTO FUNCTION _chrome_is_java_only_category(category STRING)
RETURNS BOOL AS
SELECT $category GLOB '*Java*' AND NOT $category GLOB '*toplevel*';

-- Slices that receive a mojo message: the current "Receive ..." toplevel
-- slices and the two older forms ("<iface>.mojom.<x>" slices of a mojom
-- category, "Connector::DispatchMessage"), whose hash is on the first
-- "ScopedSetIpcHash" slice below them.
CREATE PERFETTO TABLE _chrome_mojo_slices(
  id LONG,
  interface_name STRING,
  ipc_hash LONG,
  message_type STRING
) AS
WITH legacy AS (
  SELECT
    s.id,
    IIF(s.name = 'Connector::DispatchMessage',
        coalesce(
          extract_arg(s.arg_set_id, 'chrome_mojo_event_info.watcher_notify_interface_tag'),
          extract_arg(s.arg_set_id, 'chrome_mojo_event_info.mojo_interface_tag')),
        s.name) AS interface_name
  FROM slice AS s
  WHERE (s.category GLOB '*mojom*' AND s.name GLOB '*.mojom.*')
     OR (s.category GLOB '*toplevel*' AND s.name = 'Connector::DispatchMessage')
)
SELECT
  id,
  extract_arg(arg_set_id, 'chrome_mojo_event_info.mojo_interface_tag') AS interface_name,
  extract_arg(arg_set_id, 'chrome_mojo_event_info.ipc_hash') AS ipc_hash,
  CASE name
    WHEN 'Receive mojo message' THEN 'message'
    WHEN 'Receive mojo reply' THEN 'reply'
  END AS message_type
FROM slice
WHERE category GLOB '*toplevel*' AND name GLOB 'Receive *'
UNION ALL
SELECT
  legacy.id,
  legacy.interface_name,
  (SELECT extract_arg(d.arg_set_id, 'chrome_mojo_event_info.ipc_hash')
   FROM descendant_slice(legacy.id) AS d
   WHERE d.name = 'ScopedSetIpcHash'
   ORDER BY d.id LIMIT 1) AS ipc_hash,
  'message' AS message_type
FROM legacy;

-- Java slices (Java-only category, dur > 0) with the layout/draw suffixes
-- taken off their names, less the generic framework views, which say
-- nothing about what ran.
CREATE PERFETTO TABLE _chrome_interesting_java_slices(
  id LONG,
  name STRING
) AS
WITH trimmed AS (
  SELECT
    id,
    replace(replace(replace(replace(replace(name,
      '.draw', ''), '.onLayout', ''), '.onMeasure', ''), '.Layout', ''),
      '.Measure', '') AS name
  FROM slice
  WHERE _chrome_is_java_only_category(category) AND dur > 0
)
SELECT id, name
FROM trimmed
WHERE name NOT IN (
  'FitWindowsFrameLayout', 'FitWindowsLinearLayout', 'ContentFrameLayout',
  'CoordinatorLayout', 'ComponentHost', 'CompositorView:finalizeLayers',
  'CompositorViewHolder', 'CompositorViewHolder:layout',
  'CompositorViewHolder:updateContentViewChildrenDimension',
  'CoordinatorLayoutForPointer', 'OptimizedFrameLayout',
  'ViewResourceAdapter:getBitmap', 'ViewResourceFrameLayout',
  'AppCompatImageButton', 'ScrollingBottomViewResourceFrameLayout',
  'ViewResourceAdapter:captureWithHardwareDraw',
  'ViewResourceAdapter:captureWithSoftwareDraw', 'LayoutDriver:onUpdate')
ORDER BY id;

-- The outermost interesting Java slices (none of their ancestors is one),
-- with whether a toolbar screenshot (software or hardware capture) is above
-- them.
CREATE PERFETTO TABLE _chrome_java_views(
  id LONG,
  name STRING,
  is_software_screenshot BOOL,
  is_hardware_screenshot BOOL
) AS
SELECT
  j.id,
  j.name,
  EXISTS(SELECT 1 FROM ancestor_slice(j.id) AS a
         WHERE a.name = 'ViewResourceAdapter:captureWithSoftwareDraw')
    AS is_software_screenshot,
  EXISTS(SELECT 1 FROM ancestor_slice(j.id) AS a
         WHERE a.name = 'ViewResourceAdapter:captureWithHardwareDraw')
    AS is_hardware_screenshot
FROM _chrome_interesting_java_slices AS j
WHERE NOT EXISTS(
  SELECT 1 FROM ancestor_slice(j.id) AS a
  JOIN _chrome_interesting_java_slices AS i USING (id))
ORDER BY j.id;

-- Operations on Chrome's own (non-generic) Java views: the outermost
-- interesting Java slices.
CREATE PERFETTO VIEW chrome_java_views(
  filtered_name STRING,
  is_software_screenshot BOOL,
  is_hardware_screenshot BOOL,
  slice_id LONG
) AS
SELECT name AS filtered_name, is_software_screenshot, is_hardware_screenshot,
  id AS slice_id
FROM _chrome_java_views;

-- Scheduler task slices: "ThreadControllerImpl::RunTask" and
-- "ThreadPool_RunTask" of a toplevel category.
CREATE PERFETTO TABLE _chrome_scheduler_task_ids(id LONG) AS
SELECT id
FROM slice
WHERE category GLOB '*toplevel*'
  AND name IN ('ThreadControllerImpl::RunTask', 'ThreadPool_RunTask')
ORDER BY id;

-- Tasks run by Chrome's scheduler, with the PostTask site each came from.
CREATE PERFETTO VIEW chrome_scheduler_tasks(
  id LONG,
  type STRING,
  name STRING,
  ts TIMESTAMP,
  dur DURATION,
  utid LONG,
  thread_name STRING,
  upid LONG,
  process_name STRING,
  track_id LONG,
  category STRING,
  depth LONG,
  parent_id LONG,
  arg_set_id LONG,
  thread_ts TIMESTAMP,
  thread_dur DURATION,
  posted_from STRING
) AS
WITH tasks AS (
  SELECT s.*, _chrome_task_posted_from(s.arg_set_id) AS site
  FROM _chrome_scheduler_task_ids AS t
  JOIN slice AS s USING (id)
)
SELECT
  tasks.id,
  'chrome_scheduler_tasks' AS type,
  printf('RunTask(posted_from=%s)', tasks.site) AS name,
  tasks.ts,
  tasks.dur,
  thread.utid,
  thread.name AS thread_name,
  process.upid,
  process.name AS process_name,
  tasks.track_id,
  tasks.category,
  tasks.depth,
  tasks.parent_id,
  tasks.arg_set_id,
  tasks.thread_ts,
  tasks.thread_dur,
  tasks.site AS posted_from
FROM tasks
JOIN thread_track ON tasks.track_id = thread_track.id
JOIN thread USING (utid)
JOIN process USING (upid)
ORDER BY tasks.id;

-- Roots that Java view work is attributed to: UI-thread BeginMainFrame
-- scheduler tasks (posted from ScheduledActionSendBeginMainFrame) and
-- Choreographer frames run by the Android looper; java_views lists the
-- distinct views below each, in name order (NULL for none).
CREATE PERFETTO TABLE _chrome_tasks_with_java_views(
  id LONG,
  kind STRING,
  java_views STRING
) AS
WITH roots AS (
  SELECT id, 'SingleThreadProxy::BeginMainFrame' AS kind
  FROM slice
  WHERE name = 'ThreadControllerImpl::RunTask'
    AND _chrome_task_posted_from(arg_set_id)
      = 'cc/trees/single_thread_proxy.cc:ScheduledActionSendBeginMainFrame'
  UNION ALL
  SELECT id, 'Choreographer' AS kind
  FROM slice
  WHERE name GLOB 'Looper.dispatch: android.view.Choreographer$FrameHandler*'
),
views AS (
  SELECT DISTINCT r.id, v.name
  FROM roots AS r
  JOIN descendant_slice(r.id) AS d
  JOIN _chrome_java_views AS v ON v.id = d.id
)
SELECT
  r.id,
  r.kind,
  (SELECT group_concat(name, ',')
   FROM (SELECT name FROM views WHERE views.id = r.id ORDER BY name))
    AS java_views
FROM roots AS r
ORDER BY r.id;

-- The mojo slice a task ran, if any: the shallowest, earliest toplevel
-- slice below it, past the watcher's own bookkeeping slices. A sync call
-- made by the task shows here as a "Send" slice, which names no message.
CREATE PERFETTO FUNCTION _chrome_task_mojo_candidate(task_id LONG)
RETURNS LONG AS
SELECT d.id
FROM descendant_slice($task_id) AS d
WHERE d.category GLOB '*toplevel*'
  AND d.name NOT IN ('SimpleWatcher::OnHandleReady', 'MessagePipe peer closed')
ORDER BY d.depth, d.ts
LIMIT 1;

-- Scheduler tasks posted by mojo's dispatch sites, named after the message
-- they received: "<interface> <message|reply> (hash=<ipc hash>)".
CREATE PERFETTO TABLE _chrome_mojo_tasks(
  id LONG,
  task_name STRING
) AS
WITH dispatch AS (
  SELECT id, _chrome_task_mojo_candidate(id) AS mojo_id
  FROM chrome_scheduler_tasks
  WHERE posted_from IN (
    'mojo/public/cpp/system/simple_watcher.cc:Notify',
    'mojo/public/cpp/system/simple_watcher.cc:ArmOrNotify',
    'mojo/public/cpp/bindings/lib/connector.cc:PostDispatchNextMessageFromPipe',
    'ipc/ipc_mojo_bootstrap.cc:Accept')
)
SELECT
  dispatch.id,
  printf('%s %s (hash=%d)', m.interface_name, m.message_type, m.ipc_hash)
    AS task_name
FROM dispatch
JOIN _chrome_mojo_slices AS m ON m.id = dispatch.mojo_id
ORDER BY dispatch.id;

-- The frame type (main frame or subframe) of the first navigation step of
-- RenderFrameHostImpl below a task.
CREATE PERFETTO FUNCTION _chrome_task_frame_type(task_id LONG)
RETURNS STRING AS
SELECT extract_arg(d.arg_set_id, 'render_frame_host.frame_type')
FROM descendant_slice($task_id) AS d
WHERE d.name IN (
  'RenderFrameHostImpl::BeginNavigation',
  'RenderFrameHostImpl::DidCommitProvisionalLoad',
  'RenderFrameHostImpl::DidCommitSameDocumentNavigation',
  'RenderFrameHostImpl::DidStopLoading')
ORDER BY d.id
LIMIT 1;

-- Mojo tasks carrying one of four FrameHost navigation messages, by the
-- message's readable name and the frame it was for.
CREATE PERFETTO TABLE _chrome_navigation_tasks(
  id LONG,
  task_name STRING
) AS
WITH named AS (
  SELECT
    id,
    CASE task_name
      WHEN 'content.mojom.FrameHost message (hash=2168461044)'
        THEN 'FrameHost::BeginNavigation'
      WHEN 'content.mojom.FrameHost message (hash=3561497419)'
        THEN 'FrameHost::DidCommitProvisionalLoad'
      WHEN 'content.mojom.FrameHost message (hash=1421450774)'
        THEN 'FrameHost::DidCommitSameDocumentNavigation'
      WHEN 'content.mojom.FrameHost message (hash=368650583)'
        THEN 'FrameHost::DidStopLoading'
    END AS readable
  FROM _chrome_mojo_tasks
)
SELECT
  id,
  printf('%s (%s)', readable,
         coalesce(_chrome_task_frame_type(id), 'unknown frame type')) AS task_name
FROM named
WHERE readable IS NOT NULL
ORDER BY id;

-- Every task: toplevel slices with no toplevel ancestor (named, in order of
-- precedence, as a navigation, a Java view root, a mojo message, a
-- scheduler task, or else by the slice's name), and Java-only slices with
-- no Java or toplevel ancestor.
CREATE PERFETTO TABLE _chrome_tasks(
  id LONG,
  name STRING,
  task_type STRING
) AS
WITH toplevel AS (
  SELECT s.id, s.name
  FROM slice AS s
  WHERE s.category IN ('toplevel', 'toplevel,viz', 'toplevel,Java')
    AND NOT EXISTS(SELECT 1 FROM ancestor_slice(s.id) AS a
                   WHERE a.category GLOB '*toplevel*')
),
java AS (
  SELECT s.id, s.name, 'java' AS task_type
  FROM slice AS s
  WHERE _chrome_is_java_only_category(s.category)
    AND NOT EXISTS(SELECT 1 FROM ancestor_slice(s.id) AS a
                   WHERE a.category GLOB '*toplevel*' OR a.category GLOB '*Java*')
)
SELECT
  t.id,
  coalesce(nav.task_name,
           IIF(jv.id IS NULL, NULL,
               printf('%s(java_views=%s)', jv.kind, jv.java_views)),
           mojo.task_name,
           IIF(sched.id IS NULL, NULL,
               printf('RunTask(posted_from=%s)',
                      _chrome_task_posted_from(sched_slice.arg_set_id))),
           t.name) AS name,
  CASE
    WHEN nav.id IS NOT NULL THEN 'navigation_task'
    WHEN jv.kind = 'Choreographer' THEN 'choreographer'
    WHEN jv.kind IS NOT NULL THEN 'ui_thread_begin_main_frame'
    WHEN mojo.id IS NOT NULL THEN 'mojo'
    WHEN sched.id IS NOT NULL THEN 'scheduler'
    ELSE 'other'
  END AS task_type
FROM toplevel AS t
LEFT JOIN _chrome_navigation_tasks AS nav USING (id)
LEFT JOIN _chrome_tasks_with_java_views AS jv USING (id)
LEFT JOIN _chrome_mojo_tasks AS mojo USING (id)
LEFT JOIN _chrome_scheduler_task_ids AS sched USING (id)
LEFT JOIN slice AS sched_slice ON sched_slice.id = sched.id
UNION ALL
SELECT id, name, task_type FROM java
ORDER BY id;

-- Chrome's tasks with their thread and process; the tasks of one thread do
-- not overlap.
CREATE PERFETTO VIEW chrome_tasks(
  id LONG,
  name STRING,
  task_type STRING,
  thread_name STRING,
  utid LONG,
  process_name STRING,
  upid LONG,
  ts TIMESTAMP,
  dur DURATION,
  track_id LONG,
  category STRING,
  arg_set_id LONG,
  thread_ts TIMESTAMP,
  thread_dur DURATION,
  full_name STRING
) AS
SELECT
  t.id,
  t.name,
  t.task_type,
  thread.name AS thread_name,
  thread.utid,
  process.name AS process_name,
  thread.upid,
  s.ts,
  s.dur,
  s.track_id,
  s.category,
  s.arg_set_id,
  s.thread_ts,
  s.thread_dur,
  t.name AS full_name
FROM _chrome_tasks AS t
JOIN slice AS s USING (id)
JOIN thread_track AS tt ON s.track_id = tt.id
JOIN thread USING (utid)
JOIN process USING (upid);
