"""End-to-end: Android frame packets — GraphicsFrameEvent buffer events and
phases (import/proto/proto_frames.c, the frame_slice view) and
FrameTimelineEvent slices (proto_frame_timeline.c, model/frame_timeline.c). Traces are
generated here; the expected answers are worked out from the rules in
proto_frames.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

GRAPHICS_FRAME_EVENT, FRAME_TIMELINE_EVENT = 57, 76
DEQUEUE, QUEUE, POST, ACQUIRE, LATCH, PRESENT, CANCEL = 1, 2, 3, 4, 5, 8, 13


def buffer_event(ts, kind=None, buf=1, frame=None, layer='L', dur=None):
    body = b''
    if frame is not None:
        body += pb_int(1, frame)
    if kind is not None:
        body += pb_int(2, kind)
    if layer is not None:
        body += pb_bytes(3, layer)
    if dur is not None:
        body += pb_int(4, dur)
    if buf is not None:
        body += pb_int(5, buf)
    return pb_packet(pb_int(8, ts), pb_int(10, 1),
                     pb_bytes(GRAPHICS_FRAME_EVENT, pb_bytes(1, body)))


FRAMES = ("select f.ts, f.dur, t.name as track, f.name, f.depth, f.layer_name, "
          "f.frame_number as frame, f.queue_to_acquire_time as q2a, "
          "f.acquire_to_latch_time as a2l, f.latch_to_present_time as l2p "
          "from frame_slice f join track t on t.id = f.track_id order by f.id")
ERRORS = "select value from stats where name = 'graphics_frame_event_parser_errors'"


class GraphicsFrameEventTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'frames.pb', b''.join(packets))

    def test_buffer_events_and_phases(self):
        path = self.trace(
            buffer_event(10, DEQUEUE, frame=5), buffer_event(20, QUEUE, frame=5),
            buffer_event(25, ACQUIRE, frame=5), buffer_event(30, LATCH, frame=5),
            buffer_event(40, PRESENT, frame=5), buffer_event(50, PRESENT, frame=6, dur=2))
        self.assertEqual(e.query(FRAMES, path),
                         '"ts","dur","track","name","depth","layer_name","frame","q2a","a2l","l2p"\n'
                         '10,0,"Buffer: 1 L","Dequeue",0,"L",5,0,0,10\n'
                         '10,10,"APP_1 L","5",0,"L",5,"[NULL]","[NULL]","[NULL]"\n'
                         '20,0,"Buffer: 1 L","Queue",0,"L",5,0,0,20\n'
                         '20,5,"GPU_1 L","5",0,"L",5,"[NULL]","[NULL]","[NULL]"\n'
                         '25,0,"Buffer: 1 L","AcquireFenceSignaled",0,"L",5,5,-25,25\n'
                         '30,0,"Buffer: 1 L","Latch",0,"L",5,5,5,0\n'
                         '30,10,"SF_1 L","5",0,"L",5,"[NULL]","[NULL]","[NULL]"\n'
                         '40,0,"Buffer: 1 L","PresentFenceSignaled",0,"L",5,5,5,10\n'
                         '40,10,"Display_L","5",0,"L",5,"[NULL]","[NULL]","[NULL]"\n'
                         '50,2,"Buffer: 1 L","PresentFenceSignaled",0,"L",6,5,5,20\n'
                         '50,-1,"Display_L","6",0,"L",6,"[NULL]","[NULL]","[NULL]"\n')
        # Presents are not phases Perfetto expects a buffer to end with.
        self.assertEqual(e.query(ERRORS, path), '"value"\n2\n')
        self.assertEqual(e.query("select distinct type, extract_arg(dimension_arg_set_id, 'name') "
                                 "= name as named from track", path),
                         '"type","named"\n"graphics_frame_event",1\n')

    def test_lost_queue_leaves_the_app_phase_open_renamed_0(self):
        path = self.trace(
            buffer_event(10, DEQUEUE, frame=5), buffer_event(20, DEQUEUE, frame=6),
            buffer_event(30, QUEUE, frame=6), buffer_event(40, LATCH, frame=6),
            buffer_event(50, DEQUEUE, buf=2), buffer_event(60, LATCH, buf=2, frame=7))
        self.assertEqual(e.query(
            "select f.ts, f.dur, f.name, f.depth, f.frame_number from frame_slice f "
            "join track t on t.id = f.track_id where t.name glob 'APP_*' order by f.id", path),
            '"ts","dur","name","depth","frame_number"\n'
            '10,-1,"0",0,0\n'
            '20,10,"6",1,6\n'
            '50,-1,"0",0,0\n')

    def test_acquire_before_queue_starts_no_gpu_phase(self):
        path = self.trace(buffer_event(10, DEQUEUE, frame=3), buffer_event(12, ACQUIRE, frame=3),
                          buffer_event(15, QUEUE, frame=3), buffer_event(20, DEQUEUE, buf=4),
                          buffer_event(25, QUEUE, buf=4))
        self.assertEqual(e.query("select t.name as track, f.ts, f.dur, f.name from frame_slice f "
                                 "join track t on t.id = f.track_id "
                                 "where t.name not glob 'Buffer*' order by f.id", path),
                         '"track","ts","dur","name"\n'
                         '"APP_1 L",10,5,"3"\n'
                         '"APP_4 L",20,5,"0"\n'
                         '"GPU_4 L",25,-1,"25"\n')

    def test_bad_events(self):
        path = self.trace(
            buffer_event(10, DEQUEUE, buf=None),       # no buffer id: dropped
            buffer_event(20, None, buf=3),             # no type
            buffer_event(30, 14, buf=3),               # unknown type
            buffer_event(40, POST, buf=3, dur=5),      # a type with no phase
            buffer_event(42, CANCEL, buf=3),
            buffer_event(50, DEQUEUE, buf=5, layer=None),
            pb_packet(pb_int(8, 60), pb_int(10, 1), pb_bytes(GRAPHICS_FRAME_EVENT, b'')))
        self.assertEqual(e.query("select f.ts, f.dur, t.name as track, f.name, f.depth, "
                                 "f.layer_name from frame_slice f join track t "
                                 "on t.id = f.track_id order by f.id", path),
                         '"ts","dur","track","name","depth","layer_name"\n'
                         '20,0,"Buffer: 3 L","unknown_event",0,"L"\n'
                         '30,0,"Buffer: 3 L","unknown_event",0,"L"\n'
                         '40,5,"Buffer: 3 L","Post",0,"L"\n'
                         '42,0,"Buffer: 3 L","Cancel",1,"L"\n'
                         '50,0,"Buffer: 5 ","Dequeue",0,"no_layer_name"\n'
                         '50,-1,"APP_5 ","50",0,"no_layer_name"\n')
        self.assertEqual(e.query(ERRORS, path), '"value"\n5\n')



def timeline(ts, kind, *fields):
    return pb_packet(pb_int(8, ts), pb_int(10, 1),
                     pb_bytes(FRAME_TIMELINE_EVENT, pb_bytes(kind, b''.join(fields))))


EXPECTED_DISPLAY, ACTUAL_DISPLAY, EXPECTED_SURFACE, ACTUAL_SURFACE, FRAME_END = range(1, 6)


def display(ts, cookie, token, *extra, actual=True, pid=666):
    return timeline(ts, ACTUAL_DISPLAY if actual else EXPECTED_DISPLAY, pb_int(1, cookie),
                    pb_int(2, token), pb_int(3, pid), *extra)


def surface(ts, cookie, token, display_token, layer, *extra, actual=True, pid=1000):
    return timeline(ts, ACTUAL_SURFACE if actual else EXPECTED_SURFACE, pb_int(1, cookie),
                    pb_int(2, token), pb_int(3, display_token), pb_int(4, pid),
                    pb_bytes(5, layer), *extra)


def end(ts, cookie):
    return timeline(ts, FRAME_END, pb_int(1, cookie))


ACTUAL = ("select a.ts, a.dur, p.pid, a.name, a.display_frame_token as dft, "
          "a.surface_frame_token as sft, a.layer_name, a.present_type, a.jank_type, "
          "a.jank_severity_type as sev, a.prediction_type, a.jank_tag "
          "from actual_frame_timeline_slice a join process p using(upid) order by a.ts, a.id")
TIMELINE_STATS = ("select name, value from stats where name glob 'frame_timeline*' "
                  "order by name")


class FrameTimelineTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'timeline.pb', b''.join(packets))

    def test_expected_and_actual_frames_with_flows(self):
        path = self.trace(
            surface(10, 1, 7, 3, 'L1', actual=False), end(20, 1),
            surface(10, 2, 7, 3, 'L1', pb_int(6, 1), pb_int(9, 1), pb_int(10, 1), pb_int(12, 1)),
            end(22, 2),
            surface(12, 5, 8, 3, 'L2', pb_int(6, 2), pb_int(9, 64), pb_int(10, 2)), end(30, 5),
            display(25, 3, 3, actual=False), end(31, 3),
            display(25, 4, 3, pb_int(4, 1), pb_int(7, 2 | 16), pb_int(8, 1)), end(33, 4))
        self.assertEqual(e.query(ACTUAL, path),
                         '"ts","dur","pid","name","dft","sft","layer_name","present_type",'
                         '"jank_type","sev","prediction_type","jank_tag"\n'
                         '10,12,1000,"7",3,7,"L1","On-time Present","None","None",'
                         '"Valid Prediction","No Jank"\n'
                         '12,18,1000,"8",3,8,"L2","Late Present","App Deadline Missed","Unknown",'
                         '"Expired Prediction","Self Jank"\n'
                         '25,8,666,"3",3,"[NULL]","[NULL]","On-time Present",'
                         '"SurfaceFlinger Scheduling, SurfaceFlinger CPU Deadline Missed",'
                         '"Unknown","Valid Prediction","Self Jank"\n')
        self.assertEqual(e.query("select ts, dur, name, display_frame_token, surface_frame_token, "
                                 "layer_name from expected_frame_timeline_slice order by ts", path),
                         '"ts","dur","name","display_frame_token","surface_frame_token",'
                         '"layer_name"\n'
                         '10,10,"7",3,7,"L1"\n'
                         '25,6,"3",3,"[NULL]","[NULL]"\n')
        # The two surface frames of display token 3 flow to its display frame;
        # the overlapping surface frames take two tracks of the set.
        self.assertEqual(e.query("select s1.name as out_name, s2.name as in_name from flow f "
                                 "join slice s1 on s1.id = f.slice_out "
                                 "join slice s2 on s2.id = f.slice_in order by f.id", path),
                         '"out_name","in_name"\n"7","3"\n"8","3"\n')
        self.assertEqual(e.query("select t.name, t.type, extract_arg(t.dimension_arg_set_id, "
                                 "'track_compressor_idx') as idx from track t order by t.id", path),
                         '"name","type","idx"\n'
                         '"Expected Timeline","android_expected_frame_timeline",0\n'
                         '"Actual Timeline","android_actual_frame_timeline",0\n'
                         '"Actual Timeline","android_actual_frame_timeline",1\n'
                         '"Expected Timeline","android_expected_frame_timeline",0\n'
                         '"Actual Timeline","android_actual_frame_timeline",0\n')

    def test_jank_types_and_tags(self):
        janks = [0, 1, 128, 512, 1024, 2048, 16384, 32768, 2048 | 1, 4 | 1024]
        packets = []
        for i, jank in enumerate(janks):
            packets.append(display(10 * i, 2 * i, 2 * i, pb_int(7, jank)))
            packets.append(surface(10 * i + 1, 2 * i + 1, 2 * i + 1, 0, 'L', pb_int(9, jank)))
        path = self.trace(*packets)
        self.assertEqual(e.query("select group_concat(jank_tag, '|') as tags from (select "
                                 "jank_tag from actual_frame_timeline_slice order by ts)", path),
                         '"tags"\n"Unspecified|Unspecified|No Jank|No Jank|No Jank|'
                         'Buffer Stuffing|SurfaceFlinger Stuffing|SurfaceFlinger Stuffing|'
                         'Dropped Frame|No Jank|Non-perceivable Jank|Non-perceivable Jank|'
                         'No Jank|No Jank|Non-perceivable Jank|Non-perceivable Jank|'
                         'No Jank|No Jank|Self Jank|Other Jank"\n')
        self.assertEqual(e.query("select distinct jank_type from actual_frame_timeline_slice "
                                 "order by ts", path),
                         '"jank_type"\n"Unspecified"\n"None"\n"Buffer Stuffing"\n'
                         '"SurfaceFlinger Stuffing"\n"Dropped Frame"\n"Non Animating"\n'
                         '"ModeChange in progress"\n"PowerModeChange in progress"\n'
                         '"Prediction Error, Dropped Frame"\n')

    def test_bad_events_and_cookies(self):
        path = self.trace(
            timeline(5, EXPECTED_DISPLAY, pb_int(1, 9), pb_int(2, 9)),     # no pid
            timeline(6, FRAME_END),                                         # no cookie
            pb_packet(pb_int(8, 7), pb_int(10, 1), pb_bytes(FRAME_TIMELINE_EVENT, b'')),
            display(10, 1, 1, pb_int(4, 9), pb_int(8, 0)),  # bad present and prediction
            display(10, 1, 2),                              # the same cookie again: nested
            end(20, 1), end(21, 1), end(22, 77),            # two unpaired
            surface(30, 2, 5, 1, 'A', actual=False),
            surface(30, 3, 5, 1, 'B', actual=False),        # same token: skipped
            end(35, 3), end(40, 2))                         # its end ignored
        self.assertEqual(e.query("select a.ts, a.dur, a.depth, a.present_type, a.prediction_type "
                                 "from actual_frame_timeline_slice a order by a.id", path),
                         '"ts","dur","depth","present_type","prediction_type"\n'
                         '10,-1,0,"Unspecified Present","Unspecified Prediction"\n'
                         '10,10,1,"Unspecified Present","Unspecified Prediction"\n')
        self.assertEqual(e.query("select ts, dur, layer_name from expected_frame_timeline_slice",
                                 path), '"ts","dur","layer_name"\n30,10,"A"\n')
        self.assertEqual(e.query(TIMELINE_STATS, path),
                         '"name","value"\n"frame_timeline_event_parser_errors",5\n'
                         '"frame_timeline_unpaired_end_event",2\n')


if __name__ == '__main__':
    e.main()
