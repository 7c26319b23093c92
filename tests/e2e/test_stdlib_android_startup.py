"""End-to-end: android.startup.startups on small atrace-in-proto traces of
each Android generation (13+: launchingActivity#N slices; 10-12:
MetricsLogger launch observer slices; 9 and older: "launching: <package>"
slices only), with answers worked out by hand."""
import weft_e2e as e

MS = 1000000
SS, APP, RT, OTHER = 500, 1000, 1001, 2000
PROCESSES = [(SS, 1, 'system_server'), (APP, 1, 'com.example'), (OTHER, 1, 'com.other')]
THREADS = [(SS, SS, 'system_server'), (APP, APP, 'com.example'), (RT, APP, 'RenderThread'),
           (OTHER, OTHER, 'com.other')]
MODULE = 'INCLUDE PERFETTO MODULE android.startup.startups; '


def textproto(events, sdk=None):
    """A process tree, an optional SDK level and one ftrace bundle of atrace
    print events (ts, tid, text)."""
    out = ['packet { timestamp: 1 process_tree {']
    out += [' processes { pid: %d ppid: %d cmdline: "%s" }' % p for p in PROCESSES]
    out += [' threads { tid: %d tgid: %d name: "%s" }' % t for t in THREADS]
    out.append('} }')
    if sdk:
        out.append('packet { system_info { android_sdk_version: %d } }' % sdk)
    out.append('packet { ftrace_events { cpu: 0')
    out += [' event { timestamp: %d pid: %d print { buf: "%s\\n" } }' % ev
            for ev in sorted(events, key=lambda ev: ev[0])]
    out.append('} }')
    return '\n'.join(out) + '\n'


def thread_slice(pid, tid, name, begin_ms, end_ms):
    return [(begin_ms * MS, tid, 'B|%d|%s' % (pid, name)), (end_ms * MS, tid, 'E|%d' % pid)]


def app(name, begin_ms, end_ms, pid=APP):
    return thread_slice(pid, pid, name, begin_ms, end_ms)


def system_async(name, cookie, begin_ms, end_ms):
    return [(begin_ms * MS, SS, 'S|%d|%s|%d' % (SS, name, cookie)),
            (end_ms * MS, SS, 'F|%d|%s|%d' % (SS, name, cookie))]


def system_instant(name, at_ms):
    return [(at_ms * MS, SS, 'B|%d|%s' % (SS, name)), (at_ms * MS + 1000, SS, 'E|%d' % SS)]


def completed(startup, kind, cookie, at_ms):
    name = 'launchingActivity#%d:%s:com.example' % (startup, kind)
    return system_async(name, cookie, at_ms, at_ms)


# Android 13+: #1 cold (bind, start, resume), #2 hot (resume only), #3 warm
# after a trampoline through com.other (its own launch event lasts 700 ms of
# the 1000), #4 "completed" without a type (typed hot by its slices), #5
# completed in the same process (not a startup).
SDK33 = (system_async('launchingActivity#1', 1, 1000, 1500)
         + system_async('launching: com.example', 2, 1000, 1500)
         + app('bindApplication', 1100, 1200) + app('activityStart', 1250, 1300)
         + app('activityResume', 1300, 1350)
         + thread_slice(APP, RT, 'DrawFrame', 1400, 1450)
         + completed(1, 'completed-cold', 3, 1500)
         + system_async('launchingActivity#2', 4, 3000, 3200)
         + app('activityResume', 3050, 3100)
         + completed(2, 'completed-hot', 5, 3200)
         + system_async('launchingActivity#3', 6, 5000, 6000)
         + system_async('launching: com.other', 7, 5000, 5200)
         + system_async('launching: com.example', 8, 5300, 6000)
         + app('activityResume', 5100, 5150, pid=OTHER)
         + app('activityStart', 5400, 5500) + app('activityResume', 5500, 5600)
         + completed(3, 'completed-warm', 9, 6000)
         + system_async('launchingActivity#4', 10, 7000, 7500)
         + app('activityResume', 7100, 7200)
         + completed(4, 'completed', 11, 7500)
         + system_async('launchingActivity#5', 12, 8000, 8500)
         + completed(5, 'completed-same-process', 13, 8500))

# Android 10-12: intents at 1, 2, 3 and 4 s; a startup is an intent's window
# (to the next intent) holding exactly one launch event and a finished
# launch. 1 s: cold; 2 s: no finish; 3 s: warm with a class load; 4 s: two
# launch events.
SDK29 = (system_instant('MetricsLogger:launchObserverNotifyIntentStarted', 1000)
         + system_async('launching: com.example', 1, 1050, 1500)
         + app('bindApplication', 1100, 1200) + app('activityStart', 1250, 1300)
         + app('activityResume', 1300, 1350)
         + thread_slice(APP, RT, 'DrawFrame', 1400, 1450)
         + system_instant('MetricsLogger:launchObserverNotifyActivityLaunchFinished', 1500)
         + system_instant('MetricsLogger:launchObserverNotifyIntentStarted', 2000)
         + system_async('launching: com.other', 2, 2100, 2400)
         + app('activityResume', 2200, 2300, pid=OTHER)
         + system_instant('MetricsLogger:launchObserverNotifyIntentStarted', 3000)
         + system_async('launching: com.example', 3, 3100, 3300)
         + app('activityStart', 3150, 3200) + app('activityResume', 3200, 3250)
         + app('Lcom/example/Foo;', 3210, 3220)
         + system_instant('MetricsLogger:launchObserverNotifyActivityLaunchFinished', 3300)
         + system_instant('MetricsLogger:launchObserverNotifyIntentStarted', 4000)
         + system_async('launching: com.example', 4, 4100, 4300)
         + system_async('launching: com.other', 5, 4200, 4400)
         + system_instant('MetricsLogger:launchObserverNotifyActivityLaunchFinished', 4400))

# Android 9 and older: every launch event is a startup, numbered from 0.
SDK28 = [ev for ev in SDK29 if 'MetricsLogger' not in ev[2]]

# Hot starts of Android 9 and older: an activityResume outside every launch
# lasts to the end of the first frame starting after it (a main thread's
# doFrame with its process's DrawFrames until its next doFrame). 5 s:
# com.example resumes, the frame at 5.1 s lasts to 5.18 s (its second
# DrawFrame); 6 s: com.other resumes, the next frame (com.example's, at
# 6.1 s) ends at 6.16 s; the resume at 1.32 s is inside a launch.
SDK28_HOT = (SDK28 + app('activityResume', 5000, 5050)
             + app('Choreographer#doFrame', 5100, 5150)
             + thread_slice(APP, RT, 'DrawFrame', 5120, 5160)
             + thread_slice(APP, RT, 'DrawFrame', 5170, 5180)
             + app('Choreographer#doFrame', 5200, 5250)
             + thread_slice(APP, RT, 'DrawFrame', 5210, 5260)
             + app('activityResume', 1320, 1330)
             + app('activityResume', 6000, 6010, pid=OTHER)
             + app('Choreographer#doFrame', 6100, 6150)
             + thread_slice(APP, RT, 'DrawFrame', 6120, 6160))


class AndroidStartupTest(e.TempDirTest):
    def trace(self, name, events, sdk=None):
        return e.textproto_trace(self.dir, name, textproto(events, sdk))

    def q(self, trace, sql):
        return e.query(MODULE + sql, trace)

    def test_sdk33_startups(self):
        t = self.trace('t33', SDK33)
        self.assertEqual(self.q(t, 'SELECT * FROM android_startups'),
                         '"startup_id","ts","ts_end","dur","dur_without_trampoline",'
                         '"package","startup_type"\n'
                         '1,1000000000,1500000000,500000000,500000000,"com.example","cold"\n'
                         '2,3000000000,3200000000,200000000,200000000,"com.example","hot"\n'
                         '3,5000000000,6000000000,1000000000,700000000,"com.example","warm"\n'
                         '4,7000000000,7500000000,500000000,500000000,"com.example","hot"\n')
        self.assertEqual(self.q(t, 'SELECT * FROM android_startup_processes'),
                         '"startup_id","upid","pid","startup_type"\n'
                         '1,3,1000,"cold"\n2,3,1000,"hot"\n3,3,1000,"warm"\n4,3,1000,"hot"\n')

    def test_sdk33_threads_and_slices(self):
        t = self.trace('t33', SDK33)
        self.assertEqual(self.q(t, 'SELECT startup_id, ts, dur, pid, tid, thread_name, '
                                   'is_main_thread FROM android_startup_threads '
                                   'WHERE startup_id = 1 ORDER BY tid'),
                         '"startup_id","ts","dur","pid","tid","thread_name","is_main_thread"\n'
                         '1,1000000000,500000000,1000,1000,"com.example",1\n'
                         '1,1000000000,500000000,1000,1001,"RenderThread",0\n')
        self.assertEqual(self.q(t, 'SELECT startup_id, tid, slice_name, slice_ts, slice_dur '
                                   'FROM android_thread_slices_for_all_startups '
                                   'ORDER BY startup_id, slice_ts'),
                         '"startup_id","tid","slice_name","slice_ts","slice_dur"\n'
                         '1,1000,"bindApplication",1100000000,100000000\n'
                         '1,1000,"activityStart",1250000000,50000000\n'
                         '1,1000,"activityResume",1300000000,50000000\n'
                         '1,1001,"DrawFrame",1400000000,50000000\n'
                         '2,1000,"activityResume",3050000000,50000000\n'
                         '3,1000,"activityStart",5400000000,100000000\n'
                         '3,1000,"activityResume",5500000000,100000000\n'
                         '4,1000,"activityResume",7100000000,100000000\n')

    def test_functions(self):
        t = self.trace('t33', SDK33)
        self.assertEqual(self.q(t, "SELECT startup_id, "
                                   "android_sum_dur_for_startup_and_slice(startup_id, '*Frame') a, "
                                   "android_sum_dur_on_main_thread_for_startup_and_slice("
                                   "startup_id, 'activity*') b FROM android_startups"),
                         '"startup_id","a","b"\n1,50000000,100000000\n2,"[NULL]",50000000\n'
                         '3,"[NULL]",200000000\n4,"[NULL]",100000000\n')
        self.assertEqual(self.q(t, "SELECT slice_name, tid FROM "
                                   "android_slices_for_startup_and_slice_name(1, 'activity*')"),
                         '"slice_name","tid"\n"activityStart",1000\n"activityResume",1000\n')
        self.assertEqual(self.q(t, 'SELECT count(*) AS n FROM '
                                   'android_binder_transaction_slices_for_startup(1, 0)'),
                         '"n"\n0\n')

    def test_sdk29_startups(self):
        t = self.trace('t29', SDK29)
        self.assertEqual(self.q(t, 'SELECT * FROM android_startups'),
                         '"startup_id","ts","ts_end","dur","dur_without_trampoline",'
                         '"package","startup_type"\n'
                         '0,1000000000,1500000000,500000000,500000000,"com.example","cold"\n'
                         '1,3000000000,3300000000,300000000,300000000,"com.example","warm"\n')
        self.assertEqual(self.q(t, 'SELECT * FROM android_class_loading_for_startup'),
                         '"slice_id","startup_id","slice_name","slice_ts","slice_dur",'
                         '"thread_name","tid","arg_set_id"\n'
                         '14,1,"Lcom/example/Foo;",3210000000,10000000,"com.example",1000,'
                         '"[NULL]"\n')

    def test_sdk28_startups(self):
        t = self.trace('t28', SDK28)
        self.assertEqual(self.q(t, 'SELECT startup_id, ts, dur, package, startup_type '
                                   'FROM android_startups'),
                         '"startup_id","ts","dur","package","startup_type"\n'
                         '0,1050000000,450000000,"com.example","cold"\n'
                         '1,2100000000,300000000,"com.other","hot"\n'
                         '2,3100000000,200000000,"com.example","warm"\n'
                         '3,4100000000,200000000,"com.example","[NULL]"\n'
                         '4,4200000000,200000000,"com.other","[NULL]"\n')
        self.assertEqual(self.q(t, 'SELECT * FROM android_startup_processes'),
                         '"startup_id","upid","pid","startup_type"\n'
                         '0,3,1000,"cold"\n2,3,1000,"warm"\n1,4,2000,"hot"\n')

    def test_sdk28_hot_startups(self):
        t = self.trace('t28h', SDK28_HOT)
        self.assertEqual(self.q(t, 'SELECT startup_id, ts, ts_end, package, startup_type '
                                   'FROM android_startups WHERE startup_id >= 5'),
                         '"startup_id","ts","ts_end","package","startup_type"\n'
                         '5,5000000000,5180000000,"com.example","hot"\n'
                         '6,6000000000,6160000000,"com.other","hot"\n')
        self.assertEqual(self.q(t, 'SELECT * FROM android_startup_processes '
                                   'WHERE startup_id >= 5'),
                         '"startup_id","upid","pid","startup_type"\n'
                         '5,3,1000,"hot"\n6,4,2000,"hot"\n')

    def test_frames_without_a_frame_timeline(self):
        # Frames guessed from doFrame and DrawFrame; the frame at 5.1 s has
        # two DrawFrames (two rows), lasting to 5.18 s.
        t = self.trace('t28h', SDK28_HOT)
        out = e.query('INCLUDE PERFETTO MODULE android.frames.timeline; '
                      'SELECT frame_id, ts, dur, draw_frame_count, process_name '
                      'FROM android_frames; '
                      'SELECT frame_id, ts FROM android_first_frame_after(5150000000)', t)
        self.assertEqual(out, '"frame_id","ts","dur","draw_frame_count","process_name"\n'
                         '1,5100000000,80000000,1,"com.example"\n'
                         '2,5100000000,80000000,1,"com.example"\n'
                         '3,5200000000,60000000,1,"com.example"\n'
                         '4,6100000000,60000000,1,"com.example"\n\n'
                         '"frame_id","ts"\n3,5200000000\n')

    def test_frame_ids_from_slice_names(self):
        # "<name> <id>[ ...]" at depth 0 or 1; ids that are not integers
        # (or 0) are left out.
        t = self.trace('tids', app('Choreographer#doFrame 123', 1000, 1010)
                       + thread_slice(APP, RT, 'DrawFrames 123', 1005, 1020)
                       + app('Choreographer#doFrame 456 extra', 1100, 1110)
                       + app('Choreographer#doFrame abc', 1200, 1210)
                       + app('outer', 1300, 1400) + app('Choreographer#doFrame 789', 1310, 1320))
        out = e.query('INCLUDE PERFETTO MODULE android.frames.timeline; '
                      'SELECT frame_id, ts FROM android_frames_choreographer_do_frame; '
                      'SELECT frame_id FROM android_frames_draw_frame', t)
        self.assertEqual(out, '"frame_id","ts"\n123,1000000000\n456,1100000000\n'
                         '789,1310000000\n\n"frame_id"\n123\n')

    def test_time_to_display(self):
        # TTID: to the end of the first DrawFrame of the process's first
        # frame from the startup (5.16 s); TTFD: to the end of the first
        # frame of the main thread ending after the first reportFullyDrawn
        # (at 5.19 s: the frame at 5.2 s, drawn until 5.26 s). com.other
        # draws no frame.
        t = self.trace('t28f', SDK28_HOT + app('reportFullyDrawn', 5190, 5195))
        out = e.query('INCLUDE PERFETTO MODULE android.startup.time_to_display; '
                      'SELECT * FROM android_startup_time_to_display', t)
        self.assertEqual(out, '"startup_id","time_to_initial_display","time_to_full_display",'
                         '"ttid_frame_id","ttfd_frame_id","upid"\n'
                         '0,4110000000,4210000000,1,3,3\n'
                         '1,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '2,2060000000,2160000000,1,3,3\n'
                         '3,1060000000,1160000000,1,3,3\n'
                         '4,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '5,160000000,260000000,1,3,3\n'
                         '6,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n')

    def test_sdk_level_chooses_the_rules(self):
        # Both generations' slices, and an SDK level of 29: the observer's
        # rules apply (launchingActivity slices are ignored), and the window
        # at 3 s is the only one with one launch event and a finish.
        t = self.trace('tboth', SDK33 + SDK29, sdk=29)
        self.assertEqual(self.q(t, 'SELECT startup_id, ts, dur, startup_type '
                                   'FROM android_startups'),
                         '"startup_id","ts","dur","startup_type"\n'
                         '0,3000000000,300000000,"warm"\n')

    def test_no_startups(self):
        t = self.trace('tnone', app('activityResume', 10, 20))
        self.assertEqual(self.q(t, 'SELECT count(*) AS n FROM android_startups'), '"n"\n0\n')


if __name__ == '__main__':
    e.main()
