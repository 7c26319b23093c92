"""End-to-end: the chrome.event_latency stdlib module (chrome_event_latencies,
chrome_gesture_scroll_updates) on a text-format Chrome trace of EventLatency
slices with their stages; the answers are Perfetto's on the same trace."""
import weft_e2e as e

P = '''packet {{ trusted_packet_sequence_id: 1 timestamp: 0
  track_descriptor {{ uuid: {uuid} {body} }} }}
'''
E = '''packet {{ trusted_packet_sequence_id: 1 timestamp: {ts}
  track_event {{ type: {type} track_uuid: {track} {fields} }} }}
'''


def build():
    """EventLatency slices, each on its own async track of the browser
    process: a scroll begin, updates presented through each of the stage
    layouts (SwapEnd, LatchToPresentation, SwapStartToPresentation,
    LatchToSwapEnd only), one not presented, pinches presented or not, a
    second scroll whose stages never end, and an unfinished tap."""
    descs = [P.format(uuid=10, body='process { pid: 1 process_name: "Browser" }')]
    events = []

    def latency(n, ts, dur, args, stages):
        track = 100 + n
        descs.append(P.format(uuid=track, body='parent_uuid: 10 name: "EventLatency %d"' % n))
        ext = '[perfetto.protos.ChromeTrackEvent.event_latency] { %s }' % args
        events.append((ts, 0, E.format(ts=ts, type='TYPE_SLICE_BEGIN', track=track,
                      fields='categories: "cc,input" name: "EventLatency" ' + ext)))
        if dur is not None:
            events.append((ts + dur, 2, E.format(ts=ts + dur, type='TYPE_SLICE_END',
                                                 track=track, fields='')))
        for name, s, d in stages:
            events.append((s, 1, E.format(ts=s, type='TYPE_SLICE_BEGIN', track=track,
                          fields='categories: "cc,input" name: "%s"' % name)))
            if d is not None:
                events.append((s + d, 1, E.format(ts=s + d, type='TYPE_SLICE_END',
                                                  track=track, fields='')))

    submit = 'SubmitCompositorFrameToPresentationCompositorFrame'

    def full(ts):
        return [(submit, ts + 40, 60), ('BufferAvailableToBufferReady', ts + 50, 5),
                ('BufferReadyToLatch', ts + 55, 5), ('LatchToSwapEnd', ts + 60, 10),
                ('SwapEndToPresentationCompositorFrame', ts + 70, 30)]

    latency(0, 1000, 100, 'event_type: GESTURE_SCROLL_BEGIN event_latency_id: 1', full(1000))
    latency(1, 1100, 100, 'event_type: GESTURE_SCROLL_UPDATE event_latency_id: 2 '
            'vsync_interval_ms: 16.6 surface_frame_trace_id: 7 display_trace_id: 8', full(1100))
    latency(2, 1200, 100, 'event_type: FIRST_GESTURE_SCROLL_UPDATE event_latency_id: 3 '
            'is_janky_scrolled_frame: true', [(submit, 1240, 60), ('LatchToPresentation', 1260, 35)])
    latency(3, 1300, 100, 'event_type: GESTURE_SCROLL_UPDATE event_latency_id: 4',
            [('SubmitToPresentation', 1340, 60), ('SwapStartToPresentation', 1350, 40)])
    latency(4, 1400, 100, 'event_type: INERTIAL_GESTURE_SCROLL_UPDATE event_latency_id: 5 '
            'is_janky_scrolled_frame: false', [(submit, 1440, 60), ('LatchToSwapEnd', 1450, 20)])
    latency(5, 1500, 50, 'event_type: GESTURE_SCROLL_UPDATE event_latency_id: 6',
            [('GenerationToRendererCompositor', 1500, 10)])
    latency(6, 1600, 100, 'event_type: GESTURE_PINCH_UPDATE', full(1600))
    latency(7, 1700, 100, 'event_type: GESTURE_PINCH_UPDATE', [])
    latency(8, 1800, 100, 'event_type: FIRST_GESTURE_SCROLL_UPDATE event_latency_id: 9',
            [(submit, 1840, None), ('SwapEndToPresentationCompositorFrame', 1850, None)])
    latency(9, 1900, None, 'event_type: GESTURE_TAP', [])
    events.sort(key=lambda e: (e[0], e[1]))
    return ''.join(descs) + ''.join(e[2] for e in events)


class ChromeEventLatencyTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 'latency.pb', build())

    def test_event_latencies(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.event_latency; '
                      'SELECT * FROM chrome_event_latencies ORDER BY id', self.trace)
        self.assertEqual(out.splitlines(), EXPECTED_LATENCIES)

    def test_gesture_scroll_updates(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.event_latency; '
                      'SELECT * FROM chrome_gesture_scroll_updates ORDER BY ts', self.trace)
        self.assertEqual(out.splitlines(), EXPECTED_UPDATES)


# The rows as Perfetto prints them for this trace.
EXPECTED_LATENCIES = [
    '"id","name","ts","dur","scroll_update_id","surface_frame_trace_id","display_trace_id","is_presented","event_type","track_id","vsync_interval_ms","is_janky_scrolled_frame","buffer_available_timestamp","buffer_ready_timestamp","latch_timestamp","swap_end_timestamp","presentation_timestamp"',
    '0,"EventLatency",1000,100,1,"[NULL]","[NULL]",1,"GESTURE_SCROLL_BEGIN",1,"[NULL]",0,1050,1055,1060,1070,1100',
    '6,"EventLatency",1100,100,2,7,8,1,"GESTURE_SCROLL_UPDATE",2,16.600000,0,1150,1155,1160,1170,1200',
    '12,"EventLatency",1200,100,3,"[NULL]","[NULL]",1,"FIRST_GESTURE_SCROLL_UPDATE",3,"[NULL]",1,"[NULL]","[NULL]",1260,"[NULL]",1295',
    '15,"EventLatency",1300,100,4,"[NULL]","[NULL]",0,"GESTURE_SCROLL_UPDATE",4,"[NULL]",0,"[NULL]","[NULL]","[NULL]","[NULL]",1400',
    '18,"EventLatency",1400,100,5,"[NULL]","[NULL]",1,"INERTIAL_GESTURE_SCROLL_UPDATE",5,"[NULL]",0,"[NULL]","[NULL]",1450,"[NULL]",1470',
    '21,"EventLatency",1500,50,6,"[NULL]","[NULL]",0,"GESTURE_SCROLL_UPDATE",6,"[NULL]",0,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"',
    '23,"EventLatency",1600,100,"[NULL]","[NULL]","[NULL]",1,"GESTURE_PINCH_UPDATE",7,"[NULL]",0,1650,1655,1660,1670,1700',
    '29,"EventLatency",1700,100,"[NULL]","[NULL]","[NULL]",0,"GESTURE_PINCH_UPDATE",8,"[NULL]",0,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"',
    '30,"EventLatency",1800,-1,9,"[NULL]","[NULL]",1,"FIRST_GESTURE_SCROLL_UPDATE",9,"[NULL]",0,"[NULL]","[NULL]","[NULL]",1850,1900',
    '33,"EventLatency",1900,-1,"[NULL]","[NULL]","[NULL]",0,"GESTURE_TAP",10,"[NULL]",0,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"',
]

EXPECTED_UPDATES = [
    '"id","name","ts","dur","scroll_update_id","is_presented","event_type","track_id","vsync_interval_ms","is_janky","buffer_available_timestamp","buffer_ready_timestamp","latch_timestamp","swap_end_timestamp","presentation_timestamp","scroll_id"',
    '6,"EventLatency",1100,100,2,1,"GESTURE_SCROLL_UPDATE",2,16.600000,0,1150,1155,1160,1170,1200,1',
    '12,"EventLatency",1200,100,3,1,"FIRST_GESTURE_SCROLL_UPDATE",3,"[NULL]",1,"[NULL]","[NULL]",1260,"[NULL]",1295,2',
    '15,"EventLatency",1300,100,4,0,"GESTURE_SCROLL_UPDATE",4,"[NULL]",0,"[NULL]","[NULL]","[NULL]","[NULL]",1400,2',
    '18,"EventLatency",1400,100,5,1,"INERTIAL_GESTURE_SCROLL_UPDATE",5,"[NULL]",0,"[NULL]","[NULL]",1450,"[NULL]",1470,2',
    '21,"EventLatency",1500,50,6,0,"GESTURE_SCROLL_UPDATE",6,"[NULL]",0,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]",2',
    '23,"EventLatency",1600,100,"[NULL]",1,"GESTURE_PINCH_UPDATE",7,"[NULL]",0,1650,1655,1660,1670,1700,2',
    '30,"EventLatency",1800,-1,9,1,"FIRST_GESTURE_SCROLL_UPDATE",9,"[NULL]",0,"[NULL]","[NULL]","[NULL]",1850,1900,3',
]


if __name__ == '__main__':
    e.main()
