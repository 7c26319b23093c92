"""End-to-end: Android frame packets — GraphicsFrameEvent buffer events and
phases (import/proto/proto_frames.c, the frame_slice view). Traces are
generated here; the expected answers are worked out from the rules in
proto_frames.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

GRAPHICS_FRAME_EVENT = 57
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


if __name__ == '__main__':
    e.main()
