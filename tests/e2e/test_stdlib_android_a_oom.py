"""End-to-end: android.oom_adjuster and android.memory.lmk on small proto
traces (oom_score_adj from process stats, system_server's updateOomAdj_*
slices, lmkd's slices and counters); answers as Perfetto's."""
import weft_e2e as e

SS = 1000


def oom_trace():
    """com.a's score changes around system_server's OomAdjuster updates on
    two threads: with and without a parent slice, a change at an update's
    very start, changes before any update."""
    events = []

    def sl(ts, end, tid, name):
        events.extend([(ts, tid, 'B|%d|%s' % (SS, name)), (end, tid, 'E|%d' % SS)])

    sl(1000, 1100, 1001, 'oomAdjTrigger1')
    sl(1010, 1050, 1001, 'updateOomAdj_activityChange')
    sl(3000, 3100, 1001, 'trig2')
    sl(3010, 3050, 1001, 'updateOomAdj_bindService')
    sl(3200, 3250, 1002, 'updateOomAdj_onbinder')
    sl(3300, 3400, 1002, 'trig3')
    sl(3310, 3350, 1002, 'updateOomAdj_onbinder2')
    sl(3500, 3600, 1001, 'updateOomAdj_noparent')
    out = ['packet { timestamp: 1 process_tree { processes { pid: 1000 ppid: 1 cmdline: '
           '"system_server" } processes { pid: 2001 ppid: 1 cmdline: "com.a" uid: 10001 } '
           'threads { tid: 1001 tgid: 1000 name: "OomAdjuster" } threads { tid: 1002 '
           'tgid: 1000 name: "binder:1000_2" } } }']
    for ts, pid, v in [(1010, 2001, 901), (3200, 2001, 902), (500, 2001, 900), (1020, 2001, 0),
                       (1030, 2001, 0), (1040, 2001, 0), (2000, 2001, 200), (3010, 2001, 905),
                       (3220, 2001, 906), (3320, 2001, 907), (4000, 2001, 100),
                       (4500, 1000, -900)]:
        out.append('packet { timestamp: %d process_stats { processes { pid: %d '
                   'oom_score_adj: %d } } }' % (ts, pid, v))
    out.append('packet { ftrace_events { cpu: 0')
    out += [' event { timestamp: %d pid: %d print { buf: "%s\\n" } }' % ev
            for ev in sorted(events)]
    out.append(' event { timestamp: 6000 pid: 1001 print { buf: "C|1000|x|1\\n" } }')
    out.append('} }')
    return '\n'.join(out) + '\n'


def lmk_trace(slices, counters):
    """lmkd (pid 500) killing com.a and com.b: "lmk,<pid>,<reason>,<score>"
    slices and/or kill_one_process counter samples."""
    events = []
    if slices:
        for ts, name in [(1000, 'lmk,2001,3,905'), (2000, 'lmk,2002,1005,800')]:
            events.extend([(ts, 'B|500|' + name), (ts + 100, 'E|500')])
    if counters:
        events += [(ts, 'C|500|kill_one_process|%d' % v)
                   for ts, v in [(3000, 2001), (3100, 0), (3500, 2002), (3600, 0)]]
    out = ['packet { timestamp: 1 process_tree { processes { pid: 500 ppid: 1 cmdline: '
           '"/system/bin/lmkd" } processes { pid: 2001 ppid: 1 cmdline: "com.a" } '
           'processes { pid: 2002 ppid: 1 cmdline: "com.b" } } }']
    for ts, pid, v in [(500, 2001, 900), (3000, 2001, 950), (500, 2002, 100)]:
        out.append('packet { timestamp: %d process_stats { processes { pid: %d '
                   'oom_score_adj: %d } } }' % (ts, pid, v))
    out.append('packet { ftrace_events { cpu: 0')
    out += [' event { timestamp: %d pid: 500 print { buf: "%s\\n" } }' % ev
            for ev in sorted(events)]
    out.append(' event { timestamp: 6000 pid: 500 print { buf: "C|500|x|1\\n" } }')
    out.append('} }')
    return '\n'.join(out) + '\n'


LMK_HEADER = ('"ts","upid","pid","process_name","oom_score_adj","kill_reason",'
              '"kill_reason_raw"\n')
LMK_FROM_SLICES = (LMK_HEADER + '1000,3,2001,"com.a",905,"LOW_MEM_AND_SWAP",3\n'
                   '2000,4,2002,"com.b",800,"VENDOR_REASON",1005\n')


class AndroidOomAdjusterTest(e.TempDirTest):
    def test_intervals(self):
        t = e.textproto_trace(self.dir, 'oom', oom_trace())
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.oom_adjuster; SELECT ts, dur, score, bucket, upid, '
            'process_name, oom_adj_id, oom_adj_ts, oom_adj_dur, oom_adj_track_id, '
            'oom_adj_thread_name, oom_adj_reason, oom_adj_trigger FROM android_oom_adj_intervals '
            'ORDER BY upid, ts', t), EXPECTED_INTERVALS)

    def test_buckets(self):
        t = e.textproto_trace(self.dir, 'oom', oom_trace())
        scores = [-1001, -1, 0, 99, 100, 199, 200, 201, 249, 250, 899, 900, 1001]
        got = e.query('INCLUDE PERFETTO MODULE android.oom_adjuster; SELECT '
                      'android_oom_adj_score_to_bucket_name(column1) AS b FROM (VALUES %s)'
                      % ', '.join('(%d)' % s for s in scores), t)
        self.assertEqual(got.split('\n')[1:-1],
                         ['"system"', '"system"', '"foreground"', '"foreground"', '"bfgs"',
                          '"bfgs"', '"foreground_service"', '"job"', '"job"', '"background"',
                          '"background"', '"cached"', '"cached"'])
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.oom_adjuster; SELECT '
                                 'android_oom_adj_score_to_detailed_bucket_name(-5, NULL) AS a, '
                                 'android_oom_adj_score_to_detailed_bucket_name(-5, 5) AS b, '
                                 'android_oom_adj_score_to_detailed_bucket_name(-5, 10005) AS c, '
                                 'android_oom_adj_score_to_detailed_bucket_name(950, 1) AS d', t),
                         '"a","b","c","d"\n"unknown","unknown_native","unknown_app",'
                         '"cached_app_lmk_first"\n')


class AndroidLmkTest(e.TempDirTest):
    def lmk(self, slices, counters):
        t = e.textproto_trace(self.dir, 'lmk', lmk_trace(slices, counters))
        return e.query('INCLUDE PERFETTO MODULE android.memory.lmk; '
                       'SELECT * FROM android_lmk_events ORDER BY ts', t)

    def test_slices(self):
        self.assertEqual(self.lmk(True, False), LMK_FROM_SLICES)

    def test_kill_one_process(self):
        # The score from android_oom_adj_intervals at the kill.
        self.assertEqual(self.lmk(False, True), LMK_HEADER +
                         '3000,3,2001,"com.a",950,"UNKNOWN","[NULL]"\n'
                         '3500,4,2002,"com.b",100,"UNKNOWN","[NULL]"\n')

    def test_newest_source_wins(self):
        self.assertEqual(self.lmk(True, True), LMK_FROM_SLICES)


EXPECTED_INTERVALS = ('"ts","dur","score","bucket","upid","process_name","oom_adj_id","oom_adj_ts","oom_adj_dur","oom_adj_track_id","oom_adj_thread_name","oom_adj_reason","oom_adj_trigger"\n'
                 '4500,1500,-900,"system",2,"system_server",7,3500,100,1,"OomAdjuster","noparent","[NULL]"\n'
                 '500,510,900,"cached",3,"com.a","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n'
                 '1010,10,901,"cached",3,"com.a","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n'
                 '1020,10,0,"foreground",3,"com.a",1,1010,40,1,"OomAdjuster","activityChange","oomAdjTrigger1"\n'
                 '1030,10,0,"foreground",3,"com.a",1,1010,40,1,"OomAdjuster","activityChange","oomAdjTrigger1"\n'
                 '1040,960,0,"foreground",3,"com.a",1,1010,40,1,"OomAdjuster","activityChange","oomAdjTrigger1"\n'
                 '2000,1010,200,"foreground_service",3,"com.a",1,1010,40,1,"OomAdjuster","activityChange","oomAdjTrigger1"\n'
                 '3010,190,905,"cached",3,"com.a",1,1010,40,1,"OomAdjuster","activityChange","oomAdjTrigger1"\n'
                 '3200,20,902,"cached",3,"com.a",3,3010,40,1,"OomAdjuster","bindService","trig2"\n'
                 '3220,100,906,"cached",3,"com.a",4,3200,50,2,"binder:1000_2","onbinder","[NULL]"\n'
                 '3320,680,907,"cached",3,"com.a",6,3310,40,2,"binder:1000_2","onbinder2","trig3"\n'
                 '4000,2000,100,"bfgs",3,"com.a",7,3500,100,1,"OomAdjuster","noparent","[NULL]"\n')

if __name__ == '__main__':
    e.main()
