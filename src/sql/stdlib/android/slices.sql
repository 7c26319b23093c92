-- android.slices: slice names with their parameters taken out, so that
-- slices of one kind can be aggregated by name.

-- The text before the first '$' (a Java lambda or inner class), numbers in
-- it of two or more characters replaced.
CREATE PERFETTO FUNCTION _android_slice_before_dollar(name STRING)
RETURNS STRING AS
SELECT __intrinsic_strip_hex(substr($name, 1, instr($name, '$') - 1), 2);

-- "Wakelock(epolld<n>:<process>" (or epollm) with the number taken out.
CREATE PERFETTO FUNCTION _android_slice_epoll_wakelock(name STRING)
RETURNS STRING AS
SELECT IIF(
  instr($name, ':') > 0,
  substr($name, 1, length('Wakelock(epolld')) || '<...>' || substr($name, instr($name, ':')),
  __intrinsic_strip_hex($name, 2));

-- Names of slices about vsync, without their times and ids.
CREATE PERFETTO FUNCTION _android_slice_vsync_name(name STRING)
RETURNS STRING AS
SELECT CASE
  WHEN $name GLOB 'beginFrame*' THEN 'beginFrame <...>'
  WHEN $name GLOB 'frameIsEarly*' THEN 'frameIsEarly <...>'
  WHEN $name GLOB '*vsync*in*' THEN 'vsync in <...>'
  WHEN $name GLOB 'present for*vsyncIn*' THEN 'present for vsync in <...>'
  WHEN $name GLOB 'wait for earliest present time*' THEN 'wait for earliest present time <vsync>'
  WHEN $name GLOB 'present for Common Panel*' THEN 'present for Common Panel'
  WHEN $name GLOB 'frameTimelineInfo*' THEN 'frameTimelineInfo <...>'
  WHEN $name GLOB '*setFrameTimelineInfo*' THEN 'setFrameTimelineInfo <...>'
  WHEN $name GLOB '*AChoreographer_vsyncCallback*' THEN 'AChoreographer_vsyncCallback <...>'
  WHEN $name GLOB 'unsync-vsync-id=* isSfChoreo=false' THEN 'unsync-vsync-id=<...> isSfChoreo=false'
  WHEN $name GLOB 'unsync-vsync-id=* isSfChoreo=true' THEN 'unsync-vsync-id=<...> isSfChoreo=true'
  WHEN $name GLOB 'Discarding old vsync*' THEN 'Discarding old vsync'
  WHEN $name GLOB 'setDisplayModePtr*' THEN 'setDisplayModePtr'
  WHEN $name GLOB 'adjusting vsync by*' THEN 'adjusting vsync by <...>'
  WHEN $name GLOB 'Not-Adjusting vsync by*' THEN 'Not-Adjusting vsync by <...>'
  WHEN $name GLOB 'dropping stale frameNumber*' THEN 'dropping stale frameNumber <...>'
  WHEN $name GLOB 'Sensor event from com.google.sensor.camera_vsync*'
    THEN 'Sensor event from com.google.sensor.camera_vsync <...>'
  WHEN $name GLOB '*DisplayInfo*' THEN 'DisplayInfo <...>'
  WHEN $name GLOB 'Choreographer#onVsync*' THEN 'Choreographer#onVsync<...>'
  WHEN $name GLOB 'appSf alarm*;*VSYNC in*' THEN 'appSf alarm in <...>; vsync in <...>'
  WHEN $name GLOB 'sf alarm*;*VSYNC in*' THEN 'sf alarm in <...>; vsync in <...>'
  WHEN $name GLOB 'app alarm*;*VSYNC in*' THEN 'app alarm in <...>; vsync in <...>'
  WHEN $name GLOB 'FT#*' THEN 'FT#FrameTrackerEvent'
  WHEN $name GLOB '*isVsyncValid*' THEN 'isVsyncValid <...>'
  WHEN $name GLOB 'onHardwareVsyncRequest*' THEN 'onHardwareVsyncRequest <...>'
  WHEN $name GLOB 'onComposerHalVsync*' THEN 'onComposerHalVsync <...>'
  WHEN $name GLOB 'ensureMinFrameDurationIsKept*mNumVsyncsForFrame=*mPastExpectedPresentTimes.size()=*'
    THEN 'ensureMinFrameDurationIsKept mNumVsyncsForFrame=<...> mPastExpectedPresentTimes.size()=<...>'
  WHEN $name GLOB '*lastVsyncDelta*' THEN 'lastVsyncDelta=<...>'
  WHEN $name GLOB 'mLastCommittedVsync in*' THEN 'mLastCommittedVsync in <...>'
  ELSE __intrinsic_strip_hex($name, 2)
END;

-- "Transaction (<thread>, <n>)" without the number; a "Thread-<n>" thread
-- loses its number instead and keeps the rest after a doubled comma, as
-- Perfetto writes it.
CREATE PERFETTO FUNCTION _android_slice_transaction_name(name STRING)
RETURNS STRING AS
SELECT IIF(
  $name GLOB 'Transaction (Thread-*, *)',
  'Transaction (Thread-<...>,' || substr($name, instr($name, ',')),
  substr($name, 1, instr($name, ',') + 1) || '<...>)');

-- Some slice names have params in them. This functions removes them to make
-- it possible to aggregate by name: where in the code a lock or monitor
-- was contended, frame numbers, the apk or dex being loaded, handler
-- classes' lambdas, ids and numbers.
CREATE PERFETTO FUNCTION android_standardize_slice_name(
  -- The raw slice name.
  name STRING
)
-- Simplified name.
RETURNS STRING AS
SELECT CASE
  WHEN $name GLOB 'monitor contention with*' THEN 'monitor contention with <...>'
  WHEN $name GLOB 'SuspendThreadByThreadId*' THEN 'SuspendThreadByThreadId <...>'
  WHEN $name GLOB 'LoadApkAssetsFd*' THEN 'LoadApkAssetsFd <...>'
  WHEN $name GLOB 'relayoutWindow*' THEN 'relayoutWindow <...>'
  WHEN $name GLOB 'android.os.Handler: kotlinx.coroutines*' THEN 'CoroutineContinuation'
  WHEN $name GLOB 'Choreographer#doFrame*' THEN 'Choreographer#doFrame'
  WHEN $name GLOB 'DrawFrames*' THEN 'DrawFrames'
  -- "drawLayer [Node] 55.0 x 55.0" is "drawLayer [Node]".
  WHEN $name GLOB 'drawLayer [[]*[]]*' THEN substr($name, 1, instr($name, ']'))
  WHEN $name GLOB 'Texture upload*' THEN 'Texture upload'
  WHEN $name GLOB 'AssetManager::OpenNonAsset*' THEN 'AssetManager::OpenNonAsset <...>'
  WHEN $name GLOB 'AssetManager::OpenXmlAsset*' THEN 'AssetManager::OpenXmlAsset <...>'
  WHEN $name GLOB 'AssetManager::OpenAsset*' THEN 'AssetManager::OpenAsset <...>'
  WHEN $name GLOB '*AssetInputStream*' THEN 'AssetInputStream'
  WHEN $name GLOB 'openTypedAssetFile*' THEN 'openTypedAssetFile <...>'
  WHEN $name GLOB 'LoadApkAssets*' THEN 'LoadApkAssets <...>'
  WHEN $name GLOB '*AssetLoader:*' THEN 'AssetLoader: <...>'
  WHEN $name GLOB 'JIT compiling*' THEN 'JIT compiling'
  WHEN $name GLOB 'requested config :*' THEN 'requested config : <...>'
  WHEN $name GLOB '/data/app*.apk' THEN 'APK load'
  WHEN $name GLOB 'OpenDexFilesFromOat*' THEN 'OpenDexFilesFromOat'
  WHEN $name GLOB 'Open oat file*' THEN 'Open oat file'
  WHEN $name GLOB 'Open dex file*' THEN 'Open dex file'
  WHEN $name GLOB 'VdexFile*' THEN 'VdexFile'
  WHEN $name GLOB 'GC: Wait For*' THEN 'Garbage Collector'
  WHEN $name GLOB 'prepareDispatchCycleLocked*' THEN 'prepareDispatchCycleLocked <...>'
  WHEN $name GLOB 'enqueueDispatchEntryAndStartDispatchCycleLocked*'
    THEN 'enqueueDispatchEntryAndStartDispatchCycleLocked <...>'
  WHEN $name GLOB 'Layers: *' THEN 'Layers: <...>'
  -- "<x> SurfaceView[<activity>](BLAST)#<n>": from "SurfaceView" to the '#'.
  WHEN $name GLOB '* SurfaceView*(BLAST)#*'
    THEN substr($name, instr($name, 'SurfaceView'),
                instr($name, '#') - instr($name, 'SurfaceView'))
  WHEN $name GLOB 'uid=*' THEN 'uid = <...>'
  WHEN $name GLOB 'wakeupap=*' THEN 'wakeupap = <...>'
  WHEN $name GLOB 'launchingActivity#*' THEN 'launchingActivity#<...>'
  WHEN $name GLOB 'updateUidStateUL*' THEN 'updateUidStateUL <...>'
  WHEN $name GLOB 'Wakelock(epolld*' OR $name GLOB 'Wakelock(epollm*'
    THEN _android_slice_epoll_wakelock($name)
  WHEN $name GLOB 'cpuhp*' THEN 'cpuhp<...>'
  WHEN $name GLOB 'atc*' THEN 'atc<...>'
  WHEN $name GLOB '[0-9]* Alarm:*' THEN 'Alarm: <...>'
  WHEN $name GLOB '[0-9]* Wifi:*' THEN 'Wifi: <...>'
  WHEN $name GLOB '[0-9]* Sensor:*' THEN 'Sensor: <...>'
  WHEN $name GLOB '*Cellular_data*' THEN 'Cellular_data <...>'
  WHEN $name GLOB '*GET_ACTIVITY_INFO ModemActivityInfo*'
    THEN '<...>GET_ACTIVITY_INFO ModemActivityInfo <...>'
  WHEN $name GLOB 'UNSOL_SIGNAL_STRENGTH*' THEN 'UNSOL_SIGNAL_STRENGTH <...>'
  WHEN $name GLOB '*GET_CELL_INFO_LIST*' THEN '<...> GET_CELL_INFO_LIST <...>'
  WHEN $name GLOB '*VOICE_REGISTRATION_STATE*' THEN '<...> VOICE_REGISTRATION_STATE <...>'
  WHEN $name GLOB '*DATA_REGISTRATION_STATE*' THEN '<...> DATA_REGISTRATION_STATE <...>'
  WHEN $name GLOB 'InputConsumer processing on ClientState*'
    THEN 'InputConsumer processing on ClientState<...>'
  WHEN $name GLOB 'Transaction (*, *)' THEN _android_slice_transaction_name($name)
  -- "Lock contention on <lock> (owner tid: 1665)": the text before '('.
  WHEN $name GLOB 'Lock contention on* (*'
    THEN substr($name, 1, instr($name, '(') - 1) || '<...>'
  -- Handler messages: "<x>Handler: <class>$<lambda>" is "Handler: <class>";
  -- "<a.b.Class>$<Inner>: <message>$..." and "<a.Class>$<Inner>: #<n>" are
  -- "Handler: <a.b.Class>".
  WHEN $name GLOB '*Handler: *$*'
    THEN _android_slice_before_dollar(substr($name, instr($name, 'Handler:')))
  WHEN $name GLOB '*.*.*: *$*' THEN 'Handler: ' || _android_slice_before_dollar($name)
  WHEN $name GLOB '*.*$*: #*' THEN 'Handler: ' || _android_slice_before_dollar($name)
  WHEN $name GLOB 'deliverInputEvent*' THEN 'deliverInputEvent <...>'
  WHEN lower($name) GLOB '*vsync*' THEN _android_slice_vsync_name($name)
  -- Stats pulls keep their atom tag.
  WHEN $name GLOB 'StatsPull-*' THEN $name
  ELSE __intrinsic_strip_hex($name, 2)
END;
