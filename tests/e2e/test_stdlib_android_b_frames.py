"""End-to-end: android.frames.per_frame_metrics on a trace with a frame
timeline and Choreographer / RenderThread slices, with the answers
Perfetto's trace processor gives."""
import weft_e2e as e
from test_frames import end, surface
from test_stdlib_linux import bundle, ftrace_event, process_tree
from weft_e2e import pb_bytes

PRINT = 3
MS = 1000000
T0 = 100000 * MS


def mark(ts, tid, text):
    return ftrace_event(ts, tid, PRINT, pb_bytes(2, text + '\n'))


def frames_trace():
    """Frames 11, 12 (two DrawFrames) and 14 (none) with expected and
    actual timeline slices; frame 13 without timeline slices."""
    events = []
    for frame, start, do_frame_dur, draws in [(11, 0, 4, [(5, 4)]),
                                              (12, 16, 30, [(47, 6), (55, 2)]),
                                              (13, 100, 250, [(351, 1)]), (14, 400, 3, [])]:
        events.append(mark(T0 + start * MS, 1000, 'B|1000|Choreographer#doFrame %d' % frame))
        events.append(mark(T0 + (start + do_frame_dur) * MS, 1000, 'E|1000'))
        for draw_start, draw_dur in draws:
            events.append(mark(T0 + draw_start * MS, 1001, 'B|1000|DrawFrame %d' % frame))
            events.append(mark(T0 + (draw_start + draw_dur) * MS, 1001, 'E|1000'))
    data = process_tree(1, [(1000, 1, 'com.app')]) + bundle(0, *events)
    cookie = 1
    for frame, expected_start, expected_end, actual_start, actual_end in [
            (11, -1, 15, 0, 10), (12, 15, 31, 16, 60), (14, 399, 415, 400, 405)]:
        data += surface(T0 + expected_start * MS, cookie, frame, 500 + frame, 'L', actual=False)
        data += end(T0 + expected_end * MS, cookie)
        data += surface(T0 + actual_start * MS, cookie + 1, frame, 500 + frame, 'L')
        data += end(T0 + actual_end * MS, cookie + 1)
        cookie += 2
    return data


class AndroidFrameMetricsTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.path = e.write_temp(self.dir, 'frames.pb', frames_trace())

    def metric(self, table):
        return e.query('INCLUDE PERFETTO MODULE android.frames.per_frame_metrics; '
                       'select * from %s' % table, self.path)

    def test_overrun_and_ui_time(self):
        self.assertEqual(self.metric('android_frames_overrun'),
                         '"frame_id","overrun"\n11,-5000000\n12,29000000\n14,-10000000\n')
        self.assertEqual(self.metric('android_frames_ui_time'),
                         '"frame_id","ui_time"\n11,4000000\n12,30000000\n13,250000000\n'
                         '14,3000000\n')

    def test_cpu_time_needs_the_timeline_and_a_draw_frame(self):
        self.assertEqual(self.metric('android_app_vsync_delay_per_frame'),
                         '"frame_id","app_vsync_delay"\n11,1000000\n12,1000000\n')
        self.assertEqual(self.metric('android_cpu_time_per_frame'),
                         '"frame_id","app_vsync_delay","do_frame_dur","draw_frame_dur","cpu_time"\n'
                         '11,1000000,4000000,4000000,9000000\n'
                         '12,1000000,30000000,8000000,39000000\n')

    def test_frame_stats_fall_back_to_ui_time(self):
        # frame 14 has no DrawFrame: its cpu time is its ui time + 5 ms
        self.assertEqual(self.metric('android_frame_stats'),
                         '"frame_id","overrun","cpu_time","ui_time","was_jank","was_slow_frame",'
                         '"was_big_jank","was_huge_jank"\n'
                         '11,-5000000,9000000,4000000,"[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '12,29000000,39000000,30000000,1,1,"[NULL]","[NULL]"\n'
                         '14,-10000000,8000000,3000000,"[NULL]","[NULL]","[NULL]","[NULL]"\n')


if __name__ == '__main__':
    e.main()
