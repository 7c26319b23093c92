"""End-to-end: the WindowManager winscope packets (proto_winscope_wm.c,
model/winscope_wm.c). Traces are generated with weft_e2e's pb_* writers;
every expected answer is worked out by hand from the rules in
proto_winscope_wm.h."""
import struct

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

WM = 'INCLUDE PERFETTO MODULE android.winscope.windowmanager;'
RECT = 'INCLUDE PERFETTO MODULE android.winscope.rect;'
COLUMNS = ('SELECT id, snapshot_id, title, token, parent_token, child_index, is_visible, '
           'window_rect_id, container_type, name_override '
           'FROM android_windowmanager_windowcontainer')
HEADER = ('"id","snapshot_id","title","token","parent_token","child_index","is_visible",'
          '"window_rect_id","container_type","name_override"\n')


def float32(number, value):
    return e.varint(number << 3 | 5) + struct.pack('<f', value)


def fixed64(number, value):
    return e.varint(number << 3 | 1) + struct.pack('<q', value)


def rect(left, top, right, bottom):
    return pb_int(1, left) + pb_int(2, top) + pb_int(3, right) + pb_int(4, bottom)


def container(token=None, title=None, children=(), visible=None, extra=b''):
    """A WindowContainerProto: extra fields, visible (3), children (5) and
    an identifier (6) of hash_code and title when given."""
    out = extra
    if visible is not None:
        out += pb_int(3, visible)
    for child in children:
        out += pb_bytes(5, child)
    identifier = b''
    if token is not None:
        identifier += pb_int(1, token)
    if title is not None:
        identifier += pb_bytes(3, title)
    if token is not None or title is not None:
        out += pb_bytes(6, identifier)
    return out


def child(kind, body):
    """A WindowContainerChildProto of kind field `kind` (2-9)."""
    return pb_bytes(kind, body)


def window(token, title, frame=None, alpha=None, visible=0):
    attributes = float32(12, alpha) if alpha is not None else b''
    frames = pb_bytes(41, pb_bytes(5, rect(*frame))) if frame else b''
    return child(8, pb_bytes(1, container(token, title)) + pb_bytes(5, attributes) +
                 pb_int(38, visible) + frames)


def display(display_id, name, width, height, token, children):
    info = pb_int(1, width) + pb_int(2, height) + pb_bytes(5, name)
    area = pb_bytes(1, container(token, 'ignored', children))
    return child(3, pb_int(2, display_id) + pb_bytes(10, info) + pb_bytes(21, area))


def entry(root_children, elapsed=123, service_extra=b'', root_extra=b''):
    """A WindowManagerTraceEntry whose root container (token 1) has the
    given children."""
    root = pb_bytes(1, container(1, 'Root', root_children, visible=1)) + root_extra
    service = pb_bytes(2, root) + service_extra
    out = fixed64(1, elapsed) if elapsed is not None else b''
    return out + pb_bytes(2, 'trace.enable') + pb_bytes(3, service)


def wm_packet(ts, body):
    """A TracePacket with WinscopeExtensions (112) .windowmanager (6)."""
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(112, pb_bytes(6, body)))


def tree():
    """Root > display 5 "D" > area "DA" > [task 7 > activity "A" > window
    "Starting foo"; task 17 (no fragment) > window; task fragment "TF";
    window container "GWC" > window token 0xabc]."""
    starting = window(9, 'Starting foo', frame=(10, 20, 110, 220), alpha=0.5, visible=1)
    activity = child(6, pb_bytes(1, 'A') + pb_bytes(2, pb_bytes(1, container(children=[starting]))
                                                    + pb_int(2, 8)) + pb_int(24, 1))
    task = child(5, pb_int(2, 7) + pb_bytes(31, pb_bytes(1, container(4, 'T', [activity]))))
    debugger = window(19, 'Waiting For Debugger: bar')
    plain_task = child(5, pb_int(2, 17) + pb_bytes(1, container(14, 'T2', [debugger])))
    fragment = child(9, pb_bytes(1, container(11, 'TF')))
    token = child(7, pb_bytes(1, container()) + pb_int(2, 0xabc))
    generic = child(2, container(12, 'GWC', [token]))
    area = child(4, pb_bytes(1, container(3, 'x', [task, plain_task, fragment, generic])) +
                 pb_bytes(2, 'DA'))
    return [display(5, 'D', 100, 200, 2, [area])]


class TreeTest(e.TempDirTest):
    def trace(self):
        data = (wm_packet(1000, entry(tree(), service_extra=pb_int(9, -1))) +
                wm_packet(2000, entry(tree(), elapsed=None)) +
                wm_packet(3000, entry(tree(), elapsed=0)))
        return e.write_temp(self.dir, 'wm.pb', data)

    def test_snapshots(self):
        self.assertEqual(e.query(
            WM + 'SELECT id, ts, focused_display_id, has_invalid_elapsed_ts, '
            'arg_set_id IS NOT NULL AS a, base64_proto_id IS NOT NULL AS b '
            'FROM android_windowmanager', self.trace()),
            '"id","ts","focused_display_id","has_invalid_elapsed_ts","a","b"\n'
            '0,1000,4294967295,0,1,1\n1,2000,0,1,1,1\n2,3000,0,1,1,1\n')

    def test_containers_depth_first(self):
        self.assertEqual(e.query(WM + COLUMNS + ' WHERE snapshot_id = 0', self.trace()),
                         HEADER +
                         '0,0,"Root",1,"[NULL]","[NULL]",1,"[NULL]","RootWindowContainer",'
                         '"[NULL]"\n'
                         '1,0,"D",2,1,0,0,0,"DisplayContent","[NULL]"\n'
                         '2,0,"DA",3,2,0,0,"[NULL]","DisplayArea","[NULL]"\n'
                         '3,0,"T",4,3,0,0,"[NULL]","Task","7"\n'
                         '4,0,"A",8,4,0,1,"[NULL]","Activity","[NULL]"\n'
                         '5,0,"Starting foo",9,8,0,1,1,"WindowState","foo"\n'
                         '6,0,"T2",14,3,1,0,"[NULL]","Task","17"\n'
                         '7,0,"Waiting For Debugger: bar",19,14,0,0,2,"WindowState","bar"\n'
                         '8,0,"TF",11,3,2,0,"[NULL]","TaskFragment","[NULL]"\n'
                         '9,0,"GWC",12,3,3,0,"[NULL]","WindowContainer","[NULL]"\n'
                         '10,0,"0xabc",2748,12,0,0,"[NULL]","WindowToken","[NULL]"\n')

    def test_rects(self):
        # The display's rect, then each window's on its display from depth
        # 1, all with one identity transform; every snapshot adds its own.
        self.assertEqual(e.query(
            RECT + 'SELECT tr.id, x, y, w, h, group_id, depth, is_visible, opacity, '
            'transform_id FROM android_winscope_trace_rect tr '
            'JOIN android_winscope_rect r ON tr.rect_id = r.id WHERE tr.id < 4', self.trace()),
            '"id","x","y","w","h","group_id","depth","is_visible","opacity","transform_id"\n'
            '0,0.000000,0.000000,100.000000,200.000000,5,0,0,"[NULL]",0\n'
            '1,10.000000,20.000000,100.000000,200.000000,5,1,1,0.500000,0\n'
            '2,0.000000,0.000000,0.000000,0.000000,5,2,0,0.000000,0\n'
            '3,0.000000,0.000000,100.000000,200.000000,5,0,0,"[NULL]",0\n')
        self.assertEqual(e.query(
            RECT + 'SELECT (SELECT count(*) FROM android_winscope_rect) AS rects, '
            'dsdx, dtdx, tx, dtdy, dsdy, ty FROM android_winscope_transform', self.trace()),
            '"rects","dsdx","dtdx","tx","dtdy","dsdy","ty"\n'
            '9,1.000000,0.000000,0.000000,1.000000,0.000000,0.000000\n')

    def test_args_leave_out_children(self):
        path = self.trace()
        args = ('SELECT key, display_value FROM args WHERE arg_set_id = (SELECT arg_set_id '
                'FROM android_windowmanager_windowcontainer WHERE id = %d) ORDER BY id')
        self.assertEqual(e.query(WM + args % 3, path),
                         '"key","display_value"\n"task.id","7"\n'
                         '"task.task_fragment.window_container.identifier.hash_code","4"\n'
                         '"task.task_fragment.window_container.identifier.title","T"\n')
        self.assertEqual(e.query(WM + args % 0, path),
                         '"key","display_value"\n"window_container.visible","true"\n'
                         '"window_container.identifier.hash_code","1"\n'
                         '"window_container.identifier.title","Root"\n')
        # The snapshot keeps everything but the service's root container.
        self.assertEqual(e.query(
            WM + 'SELECT key, display_value FROM args WHERE arg_set_id = (SELECT arg_set_id '
            'FROM android_windowmanager WHERE id = 0) ORDER BY id', path),
            '"key","display_value"\n"elapsed_realtime_nanos","123"\n"where","trace.enable"\n'
            '"window_manager_service.focused_display_id","-1"\n')
        self.assertEqual(e.query(
            WM + 'SELECT key, display_value FROM args WHERE arg_set_id = (SELECT arg_set_id '
            'FROM android_windowmanager WHERE id = 1) ORDER BY id', path),
            '"key","display_value"\n"where","trace.enable"\n'
            '"window_manager_service","[NULL]"\n')


def stat(path):
    return e.query("SELECT value FROM stats WHERE name = 'winscope_windowmanager_parse_errors'",
                   path)


class MissingFieldTest(e.TempDirTest):
    """A required field missing anywhere in the tree leaves its snapshot
    without containers, counted; the next snapshot is walked as usual."""
    BROKEN = {
        'container_title': child(2, container(31)),
        'container_hash_code': child(2, container(None, 'x')),
        'no_kind': b'',
        'display_name': child(3, pb_int(2, 5) + pb_bytes(21, pb_bytes(1, container(2, 'x')))),
        'area_name': child(4, pb_bytes(1, container(3, 'x'))),
        'task_identifier': child(5, pb_int(2, 7)),
        'activity_name': child(6, pb_bytes(2, pb_bytes(1, container()) + pb_int(2, 8))),
        'activity_token': child(6, pb_bytes(1, 'A') + pb_bytes(2, pb_bytes(1, container()))),
        'token_hash_code': child(7, pb_bytes(1, container())),
        'window_title': child(8, pb_bytes(1, container(9))),
        'fragment_container': child(9, b''),
    }

    def test_each_missing_field(self):
        ok = child(2, container(30, 'OK'))
        for name, broken in sorted(self.BROKEN.items()):
            with self.subTest(name):
                path = e.write_temp(self.dir, name + '.pb',
                                    wm_packet(1000, entry([ok, child(2, container(
                                        40, 'deep', [broken]))])) +
                                    wm_packet(2000, entry([ok])))
                self.assertEqual(e.query(
                    WM + 'SELECT (SELECT count(*) FROM android_windowmanager) AS snapshots, '
                    'group_concat(snapshot_id || title, \',\') AS containers '
                    'FROM android_windowmanager_windowcontainer', path),
                    '"snapshots","containers"\n2,"1Root,1OK"\n')
                self.assertEqual(stat(path), '"value"\n1\n')

    def test_root_without_container(self):
        service = pb_bytes(3, pb_bytes(2, pb_int(6, 1)))
        path = e.write_temp(self.dir, 'no_root.pb', wm_packet(1000, service) +
                            wm_packet(2000, pb_bytes(2, 'no service')))
        self.assertEqual(e.query(
            WM + 'SELECT (SELECT count(*) FROM android_windowmanager) AS snapshots, '
            'count(*) AS containers FROM android_windowmanager_windowcontainer', path),
            '"snapshots","containers"\n2,0\n')
        self.assertEqual(stat(path), '"value"\n2\n')

    def test_too_deep_a_tree(self):
        inner = container(99, 'leaf')
        for i in range(400):
            inner = container(100 + i, 'n', [child(2, inner)])
        path = e.write_temp(self.dir, 'deep.pb', wm_packet(1000, entry([child(2, inner)])))
        self.assertEqual(e.query(
            WM + 'SELECT count(*) AS n FROM android_windowmanager_windowcontainer', path),
            '"n"\n0\n')
        self.assertEqual(stat(path), '"value"\n1\n')

    def test_malformed_bytes_keep_what_was_read(self):
        # A truncated field after the service: the entry reads up to it.
        body = entry([child(2, container(30, 'OK'))]) + b'\x1a\x05ab'
        path = e.write_temp(self.dir, 'trunc.pb', wm_packet(1000, body))
        self.assertEqual(e.query(
            WM + 'SELECT has_invalid_elapsed_ts, (SELECT group_concat(title, \',\') FROM '
            'android_windowmanager_windowcontainer) AS titles FROM android_windowmanager', path),
            '"has_invalid_elapsed_ts","titles"\n0,"Root,OK"\n')


class KindRulesTest(e.TempDirTest):
    def test_task_names_and_containers(self):
        leaf = child(2, container(50, 'leaf'))
        named = child(5, pb_int(2, 7) + pb_bytes(32, 'NM') + pb_bytes(1, container(14, 'T')))
        # The fragment's container names the task; with no children of its
        # own, the task's container gives them.
        split = child(5, pb_int(2, 8) + pb_bytes(1, container(15, 'outer', [leaf])) +
                      pb_bytes(31, pb_bytes(1, container(16, 'inner', visible=1))))
        anonymous = child(5, pb_bytes(32, 'no id') + pb_bytes(1, container(17, 'T3')))
        path = e.write_temp(self.dir, 'tasks.pb',
                            wm_packet(1000, entry([named, split, anonymous])))
        self.assertEqual(e.query(WM + COLUMNS + ' WHERE id > 0', path), HEADER +
                         '1,0,"T",14,1,0,0,"[NULL]","Task","7(NM)"\n'
                         '2,0,"inner",16,1,1,1,"[NULL]","Task","8"\n'
                         '3,0,"leaf",50,16,0,0,"[NULL]","WindowContainer","[NULL]"\n'
                         '4,0,"T3",17,1,2,0,"[NULL]","Task","[NULL]"\n')

    def test_window_before_any_display(self):
        # No display yet: group 0xffffffff (display -1), depth from 0; the
        # display and depth carry over to the next snapshot.
        token = child(7, pb_bytes(1, container(children=[window(9, 'w1'), window(10, 'w2')])) +
                      pb_int(2, -2))
        path = e.write_temp(self.dir, 'early.pb', wm_packet(1000, entry([token])) +
                            wm_packet(2000, entry([display(3, 'D', 10, 10, 2, []), token])))
        self.assertEqual(e.query(
            WM + 'SELECT title, group_id, depth FROM android_windowmanager_windowcontainer c '
            'JOIN __intrinsic_winscope_trace_rect tr ON c.window_rect_id = tr.id '
            'ORDER BY c.id', path),
            '"title","group_id","depth"\n"w1",4294967295,0\n"w2",4294967295,1\n'
            '"D",3,0\n"w1",3,1\n"w2",3,2\n')
        self.assertEqual(e.query(
            WM + 'SELECT DISTINCT title FROM android_windowmanager_windowcontainer '
            "WHERE container_type = 'WindowToken'", path), '"title"\n"0xfffffffe"\n')


class SchemaTest(e.TempDirTest):
    def test_args_by_reflection(self):
        # Enums by name (an unknown value as its number), nested messages
        # of the imported schema, an empty message as a NULL arg.
        thumbnail = pb_bytes(6, pb_int(1, 30) + pb_int(2, 40))
        activity = child(6, pb_bytes(1, 'A') + pb_bytes(2, pb_bytes(1, container()) +
                                                        pb_int(2, 8)) + thumbnail)
        configuration = pb_bytes(1, pb_bytes(1, pb_bytes(4, pb_bytes(1, 'en'))))
        animator = pb_bytes(4, pb_bytes(3, pb_bytes(1, b'')))
        generic = child(2, container(31, 'G', extra=configuration + animator))
        attributes = pb_bytes(5, pb_int(23, 7) + pb_int(15, 9) + pb_int(10, -3))
        state = child(8, pb_bytes(1, container(9, 'w')) + attributes)
        transition = pb_bytes(16, pb_int(1, 2) + pb_int(2, 13))
        dc = child(3, pb_int(2, 5) + pb_bytes(10, pb_bytes(5, 'D')) + transition +
                   pb_bytes(21, pb_bytes(1, container(2, 'x'))))
        path = e.write_temp(self.dir, 'schema.pb',
                            wm_packet(1000, entry([activity, generic, state, dc])))
        self.assertEqual(e.query(
            WM + 'SELECT key, display_value FROM android_windowmanager_windowcontainer c '
            'JOIN args USING (arg_set_id) WHERE c.id > 0 AND key NOT LIKE \'%identifier%\' '
            'AND key NOT LIKE \'%window_token%\' ORDER BY c.id, args.id', path),
            '"key","display_value"\n'
            '"activity.name","A"\n'
            '"activity.thumbnail.width","30"\n"activity.thumbnail.height","40"\n'
            '"window_container.configuration_container.override_configuration.locales[0]'
            '.language","en"\n'
            '"window_container.surface_animator.animation_adapter.local","[NULL]"\n'
            '"window.attributes.color_mode","COLOR_MODE_SRGB"\n'
            '"window.attributes.rotation_animation","9"\n'
            '"window.attributes.format","TRANSLUCENT"\n'
            '"display_content.id","5"\n"display_content.display_info.name","D"\n'
            '"display_content.app_transition.app_transition_state","APP_STATE_RUNNING"\n'
            '"display_content.app_transition.last_used_app_transition",'
            '"TRANSIT_WALLPAPER_OPEN"\n')
