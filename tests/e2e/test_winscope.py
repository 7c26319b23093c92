"""End-to-end: Android input events and winscope packets (proto_winscope.c,
model/winscope.c). Traces are generated with weft_e2e's pb_* writers; every
expected answer is worked out by hand from the rules in proto_winscope.h."""
import struct

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def fixed32(number, value):
    return e.varint(number << 3 | 5) + struct.pack('<I', value)


def float32(number, value):
    return e.varint(number << 3 | 5) + struct.pack('<f', value)


def clocks(monotonic, boottime):
    """A ClockSnapshot relating MONOTONIC (3) and BOOTTIME (6)."""
    return pb_packet(pb_bytes(6, pb_bytes(1, pb_int(1, 3) + pb_int(2, monotonic)) +
                              pb_bytes(1, pb_int(1, 6) + pb_int(2, boottime))))


def winscope(ts, extension, payload):
    """A TracePacket with WinscopeExtensions (112) extension `extension`."""
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(112, pb_bytes(extension, payload)))


def input_event(ts, event_field, event):
    """An AndroidInputEvent (extension 5) holding `event` in `event_field`."""
    return winscope(ts, 5, pb_bytes(event_field, event))


class InputEventTest(e.TempDirTest):
    def trace(self):
        # MONOTONIC t is BOOTTIME t + 10000
        key = fixed32(1, 7) + pb_int(2, 1500) + pb_int(7, 3) + pb_int(8, 24)  # display -2
        pointer = pb_bytes(1, pb_int(1, 0) + float32(2, 1.5)) + pb_int(2, 0)
        motion = (fixed32(1, 8) + pb_int(3, 4098) + pb_int(6, 3) + pb_bytes(9, pointer) +
                  pb_int(17, 1200))
        dispatch = (fixed32(1, 8) + pb_int(3, 5) +
                    pb_bytes(4, pb_int(1, 0) + float32(2, 2.25)))
        data = (clocks(1000, 11000) + input_event(12000, 4, key) +
                input_event(12500, 1, motion) + input_event(13000, 5, dispatch) +
                input_event(13500, 3, b''))
        return e.write_temp(self.dir, 'input.pb', data)

    def test_rows(self):
        path = self.trace()
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.input;'
            'SELECT event_id, ts, source, action, device_id, display_id, key_code '
            'FROM android_key_events', path),
            '"event_id","ts","source","action","device_id","display_id","key_code"\n'
            '7,12000,0,0,0,-2,24\n0,13500,0,0,0,0,0\n')
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.input;'
            'SELECT event_id, ts, source, display_id FROM android_motion_events;'
            'SELECT event_id, vsync_id, window_id FROM android_input_event_dispatch', path),
            '"event_id","ts","source","display_id"\n8,12500,4098,-2\n\n'
            '"event_id","vsync_id","window_id"\n8,0,5\n')
        self.assertEqual(e.query(
            'SELECT (SELECT count(*) FROM __intrinsic_android_key_events '
            'WHERE base64_proto_id IS NOT NULL) AS k, (SELECT count(*) FROM '
            '__intrinsic_android_input_event_dispatch WHERE base64_proto_id IS NOT NULL) AS d',
            path), '"k","d"\n2,1\n')

    def test_args(self):
        path = self.trace()
        out = e.query(
            'INCLUDE PERFETTO MODULE android.input;'
            'SELECT a.key, a.display_value FROM android_motion_events m '
            'JOIN args a USING (arg_set_id) ORDER BY a.key', path)
        # kernel_time: event_time_nanos absent (0) + 10000
        self.assertEqual(out, '"key","display_value"\n"display_id","-2"\n'
                         '"down_time","11200"\n"down_time_nanos","1200"\n'
                         '"event_id","8"\n"kernel_time","10000"\n'
                         '"pointer[0].axis_value[0].axis","0"\n'
                         '"pointer[0].axis_value[0].value","1.5"\n'
                         '"pointer[0].pointer_id","0"\n"source","4098"\n')
        out = e.query(
            'INCLUDE PERFETTO MODULE android.input;'
            'SELECT a.key, a.display_value FROM android_input_event_dispatch d '
            'JOIN args a USING (arg_set_id) ORDER BY a.key', path)
        self.assertEqual(out, '"key","display_value"\n'
                         '"dispatched_pointer[0].pointer_id","0"\n'
                         '"dispatched_pointer[0].x_in_display","2.25"\n'
                         '"event_id","8"\n"window_id","5"\n')
        # an empty key event: a NULL arg keyed "" and the converted zero times
        out = e.query(
            'SELECT a.key, a.display_value FROM __intrinsic_android_key_events k '
            'JOIN args a USING (arg_set_id) WHERE k.ts = 13500 ORDER BY a.key', path)
        self.assertEqual(out, '"key","display_value"\n"","[NULL]"\n'
                         '"down_time","10000"\n"kernel_time","10000"\n')


class InputMethodTest(e.TempDirTest):
    def test_dumps(self):
        editor = pb_int(1, 1) + pb_bytes(4, 'pkg')
        clients = pb_bytes(2, 'here') + pb_bytes(3, pb_bytes(6, editor) + pb_bytes(7, pb_int(1, 1)))
        service = pb_bytes(2, 'svc') + pb_bytes(3, pb_int(10, 1) + pb_bytes(13, editor))
        manager = pb_bytes(3, pb_int(2, 4) + pb_bytes(7, editor) + pb_int(19, 1))
        path = e.write_temp(self.dir, 'ime.pb', winscope(100, 1, clients) +
                            winscope(200, 2, service) + winscope(300, 3, manager) +
                            winscope(400, 1, b''))
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.winscope.inputmethod;'
            'SELECT c.id, c.ts, a.key, a.display_value FROM android_inputmethod_clients c '
            'LEFT JOIN args a USING (arg_set_id) ORDER BY c.id, a.key', path),
            '"id","ts","key","display_value"\n'
            '0,100,"client.editor_info.input_type","1"\n'
            '0,100,"client.editor_info.package_name","pkg"\n'
            '0,100,"client.ime_focus_controller.has_ime_focus","true"\n'
            '0,100,"where","here"\n1,400,"","[NULL]"\n')
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.winscope.inputmethod;'
            'SELECT s.ts, a.key, a.display_value FROM android_inputmethod_service s '
            'JOIN args a USING (arg_set_id) ORDER BY a.key;'
            'SELECT m.ts, a.key, a.display_value FROM android_inputmethod_manager_service m '
            'JOIN args a USING (arg_set_id) ORDER BY a.key;'
            'SELECT count(*) FROM __intrinsic_inputmethod_service '
            'WHERE base64_proto_id IS NOT NULL', path),
            '"ts","key","display_value"\n'
            '200,"input_method_service.input_editor_info.input_type","1"\n'
            '200,"input_method_service.input_editor_info.package_name","pkg"\n'
            '200,"input_method_service.input_started","true"\n200,"where","svc"\n\n'
            '"ts","key","display_value"\n'
            '300,"input_method_manager_service.bound_to_method","true"\n'
            '300,"input_method_manager_service.cur_attribute.input_type","1"\n'
            '300,"input_method_manager_service.cur_attribute.package_name","pkg"\n'
            '300,"input_method_manager_service.cur_seq","4"\n\n'
            '"count(*)"\n1\n')


class ShellTransitionTest(e.TempDirTest):
    def test_handlers_and_protos(self):
        mappings = (pb_bytes(1, pb_int(1, 1) + pb_bytes(2, 'Default')) +
                    pb_bytes(1, pb_int(1, 2)))  # no name: ""
        data = (pb_packet(pb_int(8, 10), pb_bytes(97, mappings)) +
                pb_packet(pb_int(8, 20), pb_bytes(96, pb_int(1, 15) + pb_int(3, 5))) +
                pb_packet(pb_int(8, 30), pb_bytes(96, pb_int(1, 15))) +
                pb_packet(pb_int(8, 40), pb_bytes(96, pb_int(3, 7))))  # no id: 0
        path = e.write_temp(self.dir, 'shell.pb', data)
        self.assertEqual(e.query(
            'SELECT handler_id, handler_name, base64_proto_id IS NOT NULL AS raw '
            'FROM window_manager_shell_transition_handlers;'
            'SELECT transition_id, base64_proto_id IS NOT NULL AS raw '
            'FROM __intrinsic_window_manager_shell_transition_protos', path),
            '"handler_id","handler_name","raw"\n1,"Default",1\n2,"",1\n\n'
            '"transition_id","raw"\n15,1\n15,1\n0,1\n')


def zigzag(v):
    return (v << 1) ^ (v >> 63)


class ProtoLogTest(e.TempDirTest):
    def test_messages_formatted_with_a_later_config(self):
        seq = pb_int(10, 7)

        def message(ts, *fields):
            return pb_packet(pb_int(8, ts), seq, pb_bytes(104, b''.join(fields)))

        interned = pb_bytes(12, pb_bytes(36, pb_int(1, 1) + pb_bytes(2, 'abc')) +
                            pb_bytes(37, pb_int(1, 2) + pb_bytes(2, 'trace')))
        config = pb_bytes(105, pb_bytes(1, pb_int(1, 5) + pb_bytes(2, '%s: %d 0o%o %f %b 100%% %q') +
                                        pb_int(3, 4) + pb_int(4, 1) + pb_bytes(5, 'A.java:1')) +
                          pb_bytes(1, pb_int(1, 6) + pb_bytes(2, 'x=%d y=%d') + pb_int(3, 9) +
                                   pb_int(4, 2)) +
                          pb_bytes(2, pb_int(1, 1) + pb_bytes(3, 'TagOne')))
        data = (pb_packet(seq, pb_int(13, 1), interned) +
                message(100, pb_int(1, 5), pb_int(2, 1), pb_int(3, zigzag(-3)),
                        pb_int(3, zigzag(8)), e.pb_double(4, 2.5), pb_int(5, 1), pb_int(6, 2)) +
                # level 9: UNKNOWN; group 2 unknown; one param missing
                message(200, pb_int(1, 6), pb_int(3, zigzag(1))) +
                # no config: text NULL
                message(300, pb_int(1, 99)) +
                # unknown string and stacktrace: "<ERROR>" strings, one left over
                message(400, pb_int(1, 5), pb_int(2, 9), pb_int(6, 3)) +
                pb_packet(seq, config))
        path = e.write_temp(self.dir, 'protolog.pb', data)
        self.assertEqual(e.query('SELECT * FROM protolog', path),
                         '"id","ts","level","tag","message","stacktrace","location"\n'
                         '0,100,"WARN","TagOne","abc: -3 0o10 2.500000 true 100% %q","trace",'
                         '"A.java:1"\n'
                         '1,200,"UNKNOWN","UNKNOWN_GROUP","x=1 y=[MISSING_PARAM]","[NULL]",'
                         '"[NULL]"\n'
                         '2,300,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '3,400,"WARN","TagOne","<ERROR>: [MISSING_PARAM] 0o[MISSING_PARAM] '
                         '[MISSING_PARAM] [MISSING_PARAM] 100% %q","[NULL]","A.java:1"\n')
        self.assertEqual(e.query(
            "SELECT name, value FROM stats WHERE name LIKE 'winscope_protolog%' AND value > 0 "
            'ORDER BY name', path),
            '"name","value"\n"winscope_protolog_group_tag_missing",1\n'
            '"winscope_protolog_message_decoding_failed",1\n'
            '"winscope_protolog_missing_interned_arg_parse_errors",1\n'
            '"winscope_protolog_missing_interned_stacktrace_parse_errors",1\n'
            '"winscope_protolog_param_mismatch",6\n')


if __name__ == '__main__':
    e.main()
