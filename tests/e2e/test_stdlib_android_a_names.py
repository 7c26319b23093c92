"""End-to-end: android.slices and android.thread name standardisation and
__intrinsic_strip_hex, answers as Perfetto's."""
import weft_e2e as e

# (raw slice name, standardized name): every rule of
# android_standardize_slice_name once or more.
SLICE_NAMES = [
    ('monitor contention with owner main (123) at void a.b()',
     'monitor contention with <...>'),
    ('SuspendThreadByThreadId 123',
     'SuspendThreadByThreadId <...>'),
    ('LoadApkAssetsFd({ParcelFileDescriptor: 123})',
     'LoadApkAssetsFd <...>'),
    ('relayoutWindow#first=false/resize=false',
     'relayoutWindow <...>'),
    ('android.os.Handler: kotlinx.coroutines.internal.DispatchedContinuation',
     'CoroutineContinuation'),
    ('Choreographer#doFrame 123',
     'Choreographer#doFrame'),
    ('DrawFrames 123',
     'DrawFrames'),
    ('drawLayer [DoubleShadowNode] 55.0 x 55.0',
     'drawLayer [DoubleShadowNode]'),
    ('Texture upload(2634389) 192x192',
     'Texture upload'),
    ('AssetManager::OpenNonAsset(res/x.xml)',
     'AssetManager::OpenNonAsset <...>'),
    ('AssetManager::OpenXmlAsset(res/x.xml)',
     'AssetManager::OpenXmlAsset <...>'),
    ('AssetManager::OpenAsset(res/x.xml)',
     'AssetManager::OpenAsset <...>'),
    ('x AssetInputStream y',
     'AssetInputStream'),
    ('openTypedAssetFile /a/b',
     'openTypedAssetFile <...>'),
    ('LoadApkAssets(/a/b.apk)',
     'LoadApkAssets <...>'),
    ('foo AssetLoader: bar',
     'AssetLoader: <...>'),
    ('JIT compiling void a.b()',
     'JIT compiling'),
    ('requested config : 123',
     'requested config : <...>'),
    ('/data/app/~~abc/com.x-1/base.apk',
     'APK load'),
    ('OpenDexFilesFromOat(/a)',
     'OpenDexFilesFromOat'),
    ('Open oat file /a',
     'Open oat file'),
    ('Open dex file /a',
     'Open dex file'),
    ('VdexFile /a',
     'VdexFile'),
    ('GC: Wait For Completion Alloc',
     'Garbage Collector'),
    ('prepareDispatchCycleLocked(inputChannel=abc)',
     'prepareDispatchCycleLocked <...>'),
    ('enqueueDispatchEntryAndStartDispatchCycleLocked(abc)',
     'enqueueDispatchEntryAndStartDispatchCycleLocked <...>'),
    ('Layers: 12',
     'Layers: <...>'),
    ('1 SurfaceView[com.x/com.x.A](BLAST)#12',
     'SurfaceView[com.x/com.x.A](BLAST)'),
    ('uid=1000',
     'uid = <...>'),
    ('wakeupap=12',
     'wakeupap = <...>'),
    ('launchingActivity#12:completed',
     'launchingActivity#<...>'),
    ('updateUidStateUL 1000',
     'updateUidStateUL <...>'),
    ('Wakelock(epolld280:system_serve',
     'Wakelock(epolld<...>:system_serve'),
    ('Wakelock(epollm281:system_serve',
     'Wakelock(epollm<...>:system_serve'),
    ('Wakelock(epolld280',
     'Wakelock(epolld<num>'),
    ('cpuhp/1',
     'cpuhp<...>'),
    ('atc12',
     'atc<...>'),
    ('12 Alarm: foo',
     'Alarm: <...>'),
    ('12 Wifi: foo',
     'Wifi: <...>'),
    ('12 Sensor: foo',
     'Sensor: <...>'),
    ('abc Cellular_data x',
     'Cellular_data <...>'),
    ('x GET_ACTIVITY_INFO ModemActivityInfo y',
     '<...>GET_ACTIVITY_INFO ModemActivityInfo <...>'),
    ('UNSOL_SIGNAL_STRENGTH 12',
     'UNSOL_SIGNAL_STRENGTH <...>'),
    ('x GET_CELL_INFO_LIST y',
     '<...> GET_CELL_INFO_LIST <...>'),
    ('x VOICE_REGISTRATION_STATE y',
     '<...> VOICE_REGISTRATION_STATE <...>'),
    ('x DATA_REGISTRATION_STATE y',
     '<...> DATA_REGISTRATION_STATE <...>'),
    ('InputConsumer processing on ClientState{e1d234a mUid=1234} (0xb000000000000000)',
     'InputConsumer processing on ClientState<...>'),
    ('Transaction (ptz-fgd-1-LOCAL_MEDIA_REMOVE_DELETED_ITEMS_SYNC, 11910)',
     'Transaction (ptz-fgd-1-LOCAL_MEDIA_REMOVE_DELETED_ITEMS_SYNC, <...>)'),
    ('Transaction (Thread-12, 11910)',
     'Transaction (Thread-<...>,, 11910)'),
    ('Lock contention on thread list lock (owner tid: 1665)',
     'Lock contention on thread list lock <...>'),
    ('android.os.Handler: com.android.systemui.qs.external.TileServiceManager$1',
     'Handler: com.android.systemui.qs.external.TileServiceManager'),
    ('android.view.ViewRootImpl$ViewRootHandler: com.android.systemui.someClass$enableMarquee$1',
     'Handler: com.android.systemui.someClass'),
    ('android.os.AsyncTask$InternalHandler: #1',
     'Handler: android.os.AsyncTask'),
    ('deliverInputEvent src=0x1234 eventTimeNano=123',
     'deliverInputEvent <...>'),
    ('beginFrame 123',
     'beginFrame <num>'),
    ('frameIsEarly 123',
     'frameIsEarly <num>'),
    ('VSYNC-app in 123',
     'VSYNC-app in <num>'),
    ('present for vsyncIn 12',
     'present for vsync in <...>'),
    ('wait for earliest present time 123',
     'wait for earliest present time <num>'),
    ('present for Common Panel 12',
     'present for Common Panel <num>'),
    ('frameTimelineInfo 12',
     'frameTimelineInfo <num>'),
    ('x setFrameTimelineInfo 12',
     'x setFrameTimelineInfo <num>'),
    ('AChoreographer_vsyncCallback 12',
     'AChoreographer_vsyncCallback <...>'),
    ('unsync-vsync-id=12 isSfChoreo=false',
     'unsync-vsync-id=<...> isSfChoreo=false'),
    ('unsync-vsync-id=12 isSfChoreo=true',
     'unsync-vsync-id=<...> isSfChoreo=true'),
    ('Discarding old vsync 12',
     'Discarding old vsync'),
    ('setDisplayModePtr vsync 12',
     'setDisplayModePtr'),
    ('adjusting vsync by 12',
     'adjusting vsync by <...>'),
    ('Not-Adjusting vsync by 12',
     'Not-Adjusting vsync by <...>'),
    ('dropping stale frameNumber 12 vsync',
     'dropping stale frameNumber <...>'),
    ('Sensor event from com.google.sensor.camera_vsync 12',
     'Sensor event from com.google.sensor.camera_vsync <...>'),
    ('DisplayInfo vsync 12',
     'DisplayInfo <...>'),
    ('Choreographer#onVsync 12',
     'Choreographer#onVsync<...>'),
    ('appSf alarm 12; VSYNC in 12',
     'appSf alarm in <...>; vsync in <...>'),
    ('sf alarm 12; VSYNC in 12',
     'sf alarm in <...>; vsync in <...>'),
    ('app alarm 12; VSYNC in 12',
     'app alarm in <...>; vsync in <...>'),
    ('FT#vsync12',
     'FT#FrameTrackerEvent'),
    ('isVsyncValid 12',
     'isVsyncValid <...>'),
    ('onHardwareVsyncRequest 12',
     'onHardwareVsyncRequest <...>'),
    ('onComposerHalVsync 12',
     'onComposerHalVsync <...>'),
    ('ensureMinFrameDurationIsKept vsync mNumVsyncsForFrame=1 mPastExpectedPresentTimes.size()=2',
     'ensureMinFrameDurationIsKept mNumVsyncsForFrame=<...> mPastExpectedPresentTimes.size()=<...>'),
    ('lastVsyncDelta 12',
     'lastVsyncDelta=<...>'),
    ('mLastCommittedVsync in 12',
     'mLastCommittedVsync in <...>'),
    ('vsync 1234',
     'vsync <num>'),
    ('StatsPull-10012',
     'StatsPull-10012'),
    ('binder transaction 0x1234 abc12',
     'binder transaction 0x<num> <num>'),
    ('plain name',
     'plain name'),
    ('Lock contention on a monitor lock (owner tid: 12)',
     'Lock contention on a monitor lock <...>'),
    ('x Handler: $',
     'Handler: '),
    ('a.b: $x',
     'a.b: $x'),
]

THREAD_NAMES = [('RenderThread-1[123]', 'RenderThread'), ('binder:5543_E', 'binder'),
                ('pool-3-thread-5', 'pool'), ('MainThread', 'MainThread'),
                ('kworker/1:2H', 'kworker'), ('Thread 12', 'Thread'),
                ('hwuiTask1', 'hwuiTask<num>'), ('-abc', ''), ('ab[c-d', 'ab'),
                ('Jit thread pool', 'Jit'), ('ImageDecoder1234', 'ImageDecoder<num>'),
                ('0xff a', '<num>x<num>')]

# (text, min_repeated_digits, result): a run of hex digits starts at a
# decimal digit, at a hex digit opening the text or following a character
# that is not a letter or digit, or after "0x"; it becomes <num> when long
# enough and holding a decimal digit (after "0x": always).
STRIP_HEX = [('hwuiTask1', 1, 'hwuiTask<num>'), ('abc12def', 1, '<num>'),
             ('0x1f', 1, '<num>x<num>'), ('deadbeef', 1, 'deadbeef'),
             ('x12 ff', 1, 'x<num> ff'), ('a 1 b', 2, 'a 1 b'), ('Cab12x', 2, '<num>x'),
             ('0x12', 2, '0x<num>'), ('0xff', 2, '0x<num>'), ('gab1', 2, 'gab1'),
             ('gab1', 1, 'gab<num>'), ('g12g', 2, 'g<num>g'), ('zz9zz', 1, 'zz<num>zz'),
             ('ab1 cd', 1, '<num> cd'), ('x 0xf', 2, 'x 0xf'), ('0xg', 0, '<num>x<num>g'),
             ('\u00e912', 2, '\u00e9<num>'), ('', 1, '')]


def values(rows):
    return ', '.join("('%s')" % r.replace("'", "''") for r in rows)


def csv_rows(header, rows):
    return header + ''.join('"%s","%s"\n' % r for r in rows)


class AndroidNamesTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 't', 'packet { timestamp: 1 }\n')

    def test_slice_names(self):
        sql = ('INCLUDE PERFETTO MODULE android.slices; SELECT column1 AS n, '
               'android_standardize_slice_name(column1) AS s FROM (VALUES %s)'
               % values([n for n, _ in SLICE_NAMES]))
        self.assertEqual(e.query(sql, self.trace), csv_rows('"n","s"\n', SLICE_NAMES))

    def test_thread_names(self):
        sql = ('INCLUDE PERFETTO MODULE android.thread; SELECT column1 AS n, '
               'android_standardize_thread_name(column1) AS s FROM (VALUES %s)'
               % values([n for n, _ in THREAD_NAMES]))
        self.assertEqual(e.query(sql, self.trace), csv_rows('"n","s"\n', THREAD_NAMES))
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.thread; '
                                 'SELECT android_standardize_thread_name(NULL) AS s',
                                 self.trace), '"s"\n"[NULL]"\n')

    def test_strip_hex(self):
        for text, n, want in STRIP_HEX:
            sql = "SELECT __intrinsic_strip_hex('%s', %d) AS s" % (text, n)
            self.assertEqual(e.query(sql, self.trace), '"s"\n"%s"\n' % want, (text, n))

    def test_strip_hex_errors(self):
        for args, message in [('123, 1', 'first argument must be string'),
                              ("'a', 'x'", 'second argument must be integer'),
                              ("'a', -1", 'min_repeated_digits must be positive')]:
            rc, _, err = e.run('-Q', 'SELECT __intrinsic_strip_hex(%s)' % args, self.trace)
            self.assertNotEqual(rc, 0)
            self.assertIn('__intrinsic_strip_hex: ' + message, err)


if __name__ == '__main__':
    e.main()
