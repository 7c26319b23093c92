"""End-to-end: the SurfaceFlinger winscope packets (proto_winscope_sf.c,
model/winscope_sf.c). Traces are generated with weft_e2e's pb_* writers;
every expected answer is worked out by hand from the rules in
proto_winscope_sf.h."""
import struct

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SF = 'INCLUDE PERFETTO MODULE android.winscope.surfaceflinger;'
RECT = 'INCLUDE PERFETTO MODULE android.winscope.rect;'


def float32(number, value):
    return e.varint(number << 3 | 5) + struct.pack('<f', value)


def fixed64(number, value):
    return e.varint(number << 3 | 1) + struct.pack('<q', value)


def rect(left, top, right, bottom):
    return pb_int(1, left) + pb_int(2, top) + pb_int(3, right) + pb_int(4, bottom)


def layers_packet(ts, snapshot, seq=7):
    """A TracePacket with a surfaceflinger_layers_snapshot (93)."""
    return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_bytes(93, snapshot))


def transactions_packet(ts, entry):
    """A TracePacket with a surfaceflinger_transactions (94) entry."""
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(94, entry))


class TransactionsTest(e.TempDirTest):
    def trace(self):
        what = 0x800 | 1 << 32  # shadow radius (listed twice), destination frame
        layer = lambda lid: pb_bytes(7, pb_int(1, lid) + pb_int(2, what))
        tx = (pb_int(1, 1) + pb_int(2, 2) + pb_int(6, 10) + layer(5) + layer(6) +
              pb_bytes(8, pb_int(1, 3) + pb_int(2, 3)) + pb_int(10, 99))
        noop = pb_int(1, 4) + pb_int(2, 5) + pb_int(6, 11)
        entry = (pb_int(2, 7) + pb_bytes(3, tx) + pb_bytes(3, noop) +
                 pb_bytes(4, pb_int(1, 8)) + pb_int(5, 20) + pb_int(5, 21) +
                 pb_bytes(6, pb_int(1, 9) + pb_int(2, 2)) + pb_int(7, 30) + pb_int(8, 40))
        return e.write_temp(self.dir, 'sf_tx.pb', transactions_packet(100, entry))

    def test_rows(self):
        path = self.trace()
        self.assertEqual(e.query(
            SF + 'SELECT id, snapshot_id, transaction_type, transaction_id, pid, uid, '
            'layer_id, display_id, flags_id, arg_set_id IS NOT NULL AS a, '
            'base64_proto_id IS NOT NULL AS b FROM __intrinsic_surfaceflinger_transaction',
            path),
            '"id","snapshot_id","transaction_type","transaction_id","pid","uid","layer_id",'
            '"display_id","flags_id","a","b"\n'
            '0,0,"LAYER_CHANGED",10,1,2,5,"[NULL]",0,1,1\n'
            '1,0,"LAYER_CHANGED",10,1,2,6,"[NULL]",0,1,1\n'
            '2,0,"DISPLAY_CHANGED",10,1,2,"[NULL]",3,1,1,1\n'
            '3,0,"NOOP",11,4,5,"[NULL]","[NULL]","[NULL]",0,0\n'
            '4,0,"LAYER_ADDED","[NULL]","[NULL]","[NULL]",8,"[NULL]","[NULL]",1,1\n'
            '5,0,"LAYER_DESTROYED","[NULL]","[NULL]","[NULL]",20,"[NULL]","[NULL]",0,0\n'
            '6,0,"LAYER_DESTROYED","[NULL]","[NULL]","[NULL]",21,"[NULL]","[NULL]",0,0\n'
            '7,0,"DISPLAY_ADDED","[NULL]","[NULL]","[NULL]","[NULL]",9,2,1,1\n'
            '8,0,"DISPLAY_REMOVED","[NULL]","[NULL]","[NULL]","[NULL]",30,"[NULL]",0,0\n'
            '9,0,"LAYER_HANDLE_DESTROYED","[NULL]","[NULL]","[NULL]",40,"[NULL]","[NULL]",0,0\n')
        self.assertEqual(e.query(
            'SELECT id, ts, vsync_id, base64_proto_id IS NOT NULL AS b '
            'FROM surfaceflinger_transactions', path),
            '"id","ts","vsync_id","b"\n0,100,7,1\n')

    def test_flags(self):
        self.assertEqual(e.query(
            SF + 'SELECT flags_id, flag FROM android_surfaceflinger_transaction_flag',
            self.trace()),
            '"flags_id","flag"\n0,"eShadowRadiusChanged"\n0,"eShadowRadiusChanged"\n'
            '0,"eDestinationFrameChanged"\n1,"eSurfaceChanged"\n1,"eLayerStackChanged"\n'
            '2,"eLayerStackChanged"\n')

    def test_change_args(self):
        path = self.trace()
        # a layer change: its fields and its transaction's apply token
        self.assertEqual(e.query(
            SF + 'SELECT a.key, a.display_value FROM android_surfaceflinger_transaction t '
            'JOIN args a USING (arg_set_id) WHERE t.id = 0 ORDER BY a.key', path),
            '"key","display_value"\n"apply_token","99"\n"layer_id","5"\n'
            '"what","4294969344"\n')
        # an added display has no transaction
        self.assertEqual(e.query(
            SF + 'SELECT a.key, a.display_value FROM android_surfaceflinger_transaction t '
            'JOIN args a USING (arg_set_id) WHERE t.id = 7 ORDER BY a.key', path),
            '"key","display_value"\n"id","9"\n"what","2"\n')
        self.assertEqual(e.query(
            'SELECT a.key, a.display_value FROM surfaceflinger_transactions t '
            'JOIN args a USING (arg_set_id) WHERE a.key GLOB \'destroyed*\' ORDER BY a.key',
            path),
            '"key","display_value"\n"destroyed_layer_handles[0]","40"\n'
            '"destroyed_layers[0]","20"\n"destroyed_layers[1]","21"\n')


class LayersTest(e.TempDirTest):
    def trace(self):
        displays = (pb_bytes(7, pb_int(1, 5) + pb_bytes(2, 'D') + pb_int(3, 0) +
                             pb_bytes(5, rect(0, 0, 10, 20))) +
                    # no layer stack space rect: the size, rotated by 90 degrees
                    pb_bytes(7, pb_int(1, 6) + pb_int(3, 0xffffffff) +
                             pb_bytes(4, pb_int(1, 3) + pb_int(2, 4)) +
                             pb_bytes(6, pb_int(5, 0x400))))
        layer_a = (pb_int(1, 1) + pb_bytes(2, 'a') + pb_int(22, 1) + float32(41, 2.0) +
                   pb_int(26, 9) + pb_int(35, 2))
        layer_b = pb_int(1, 2) + pb_int(25, 1) + pb_int(26, 1) + pb_bytes(61, float32(1, 0.5))
        first = (fixed64(1, 0) + pb_bytes(2, 'w') + displays +
                 pb_bytes(3, pb_bytes(1, layer_a) + pb_bytes(1, layer_b)))
        # no layer stack: stack 0, on; the same rect is the same row
        second = fixed64(1, 600) + pb_bytes(7, pb_int(1, 7) + pb_bytes(5, rect(0, 0, 10, 20)))
        return e.write_temp(self.dir, 'sf_layers.pb',
                            layers_packet(500, first) + layers_packet(600, second))

    def test_snapshots(self):
        path = self.trace()
        self.assertEqual(e.query(
            'SELECT id, ts, sequence_id, has_invalid_elapsed_ts, base64_proto_id IS NOT NULL '
            'AS b FROM surfaceflinger_layers_snapshot', path),
            '"id","ts","sequence_id","has_invalid_elapsed_ts","b"\n'
            '0,500,7,1,1\n1,600,7,0,1\n')
        # every field but the layers is an arg
        self.assertEqual(e.query(
            'SELECT a.key, a.display_value FROM surfaceflinger_layers_snapshot s '
            'JOIN args a USING (arg_set_id) WHERE s.id = 0 AND a.key NOT GLOB \'displays*\' '
            'ORDER BY a.key', path),
            '"key","display_value"\n"elapsed_realtime_nanos","0"\n"where","w"\n')

    def test_layers(self):
        path = self.trace()
        self.assertEqual(e.query(
            'SELECT snapshot_id, layer_id, layer_name, parent, corner_radius_tl, '
            'corner_radius_tr, corner_radius_bl, corner_radius_br, hwc_composition_type, '
            'is_hidden_by_policy, z_order_relative_of, is_missing_z_parent, '
            'base64_proto_id IS NOT NULL AS b FROM surfaceflinger_layer', path),
            '"snapshot_id","layer_id","layer_name","parent","corner_radius_tl",'
            '"corner_radius_tr","corner_radius_bl","corner_radius_br",'
            '"hwc_composition_type","is_hidden_by_policy","z_order_relative_of",'
            '"is_missing_z_parent","b"\n'
            '0,1,"a","[NULL]",2.000000,2.000000,2.000000,2.000000,2,1,9,1,1\n'
            '0,2,"[NULL]",1,0.500000,0.000000,0.000000,0.000000,"[NULL]",0,1,0,1\n')
        self.assertEqual(e.query(
            'SELECT a.key, a.display_value FROM surfaceflinger_layer l '
            'JOIN args a USING (arg_set_id) WHERE l.layer_id = 2 ORDER BY a.key', path),
            '"key","display_value"\n"corner_radii.tl","0.5"\n"id","2"\n"parent","1"\n'
            '"z_order_relative_of","1"\n')

    def test_displays(self):
        self.assertEqual(e.query(
            SF + RECT + 'SELECT d.snapshot_id, d.is_on, d.is_virtual, d.display_id, '
            'd.display_name, t.group_id, t.depth, r.id, r.x, r.y, r.w, r.h '
            'FROM android_surfaceflinger_display d '
            'JOIN android_winscope_trace_rect t ON t.id = d.trace_rect_id '
            'JOIN android_winscope_rect r ON r.id = t.rect_id ORDER BY d.id', self.trace()),
            '"snapshot_id","is_on","is_virtual","display_id","display_name","group_id",'
            '"depth","id","x","y","w","h"\n'
            '0,1,0,5,"D",0,0,0,0.000000,0.000000,10.000000,20.000000\n'
            '0,0,0,6,"[NULL]",4294967295,1,1,0.000000,0.000000,4.000000,3.000000\n'
            '1,1,0,7,"[NULL]",0,0,0,0.000000,0.000000,10.000000,20.000000\n')



def float_rect(number, left, top, right, bottom):
    return pb_bytes(number, float32(1, left) + float32(2, top) + float32(3, right) +
                    float32(4, bottom))


class VisibilityTest(e.TempDirTest):
    """Four layers on one rotated display: A over B (both opaque, same
    bounds), C hidden by policy, D its child; worked out in the comments."""

    def trace(self):
        opaque = (pb_int(9, 0) + pb_bytes(20, float32(4, 1.0)) + pb_int(16, 1) +
                  pb_bytes(27, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 1) + pb_int(4, 1)) +
                  float_rect(45, 0, 0, 10, 10) + float_rect(46, 0, 0, 10, 10) +
                  pb_bytes(7, pb_bytes(2, rect(0, 0, 10, 10))))
        spy_input = pb_bytes(47, pb_bytes(3, rect(0, 0, 10, 10)) + pb_int(17, 1 << 14) +
                             pb_bytes(4, pb_bytes(2, rect(0, 0, 5, 5))))
        layer_a = pb_int(1, 1) + pb_int(10, 2) + opaque + spy_input
        layer_b = pb_int(1, 2) + pb_int(10, 1) + opaque
        layer_c = (pb_int(1, 3) + pb_int(9, 0) + pb_int(22, 1) + pb_bytes(20, float32(4, 1.0)) +
                   float_rect(45, 0, 0, 4, 4) + float_rect(46, 0, 0, 4, 4))
        layer_d = (pb_int(1, 4) + pb_int(9, 0) + pb_int(25, 3) + pb_bytes(20, float32(4, 0.5)) +
                   pb_bytes(47, pb_int(17, 1 << 3)))
        display = pb_bytes(7, pb_int(1, 1) + pb_int(3, 0) + pb_bytes(5, rect(0, 0, 20, 40)) +
                           pb_bytes(4, pb_int(1, 20) + pb_int(2, 40)) +
                           pb_bytes(6, pb_int(5, 0x400)))
        layers = b''.join(pb_bytes(1, l) for l in (layer_a, layer_b, layer_c, layer_d))
        snapshot = fixed64(1, 5) + pb_int(5, 0) + display + pb_bytes(3, layers)
        return e.write_temp(self.dir, 'sf_vis.pb', layers_packet(100, snapshot))

    def test_visibility(self):
        path = self.trace()
        # top to bottom A, B, D (C's child at its z), C; B is inside A
        self.assertEqual(e.query(
            'SELECT layer_id, is_visible, layer_rect_id, input_rect_id FROM surfaceflinger_layer',
            path),
            '"layer_id","is_visible","layer_rect_id","input_rect_id"\n'
            '1,1,4,5\n2,0,3,"[NULL]"\n3,0,1,"[NULL]"\n4,0,"[NULL]",2\n')
        self.assertEqual(e.query(
            'SELECT l.layer_id, a.key, a.display_value FROM surfaceflinger_layer l '
            'JOIN args a USING (arg_set_id) WHERE a.key GLOB \'visibility*\' '
            'OR a.key GLOB \'*occluded_by*\' OR a.key GLOB \'covered_by*\' '
            'ORDER BY l.layer_id, a.key', path),
            '"layer_id","key","display_value"\n'
            '2,"occluded_by[0]","1"\n2,"visibility_reason[0]","occluded"\n'
            '3,"visibility_reason[0]","flag is hidden"\n'
            '3,"visibility_reason[1]","buffer is empty"\n'
            '3,"visibility_reason[2]","null visible region"\n'
            '4,"visibility_reason[0]","hidden by parent 3"\n'
            '4,"visibility_reason[1]","buffer is empty"\n'
            '4,"visibility_reason[2]","bounds is 0x0"\n'
            '4,"visibility_reason[3]","null visible region"\n')

    def test_rects(self):
        path = self.trace()
        # drawn bottom to top from depth 1; the input frame goes through the
        # display's 90 degree rotation, moved down by its height (40)
        self.assertEqual(e.query(
            RECT + 'SELECT t.id, t.group_id, t.depth, t.is_spy, t.is_visible, t.opacity, '
            't.transform_id, r.x, r.y, r.w, r.h FROM android_winscope_trace_rect t '
            'JOIN android_winscope_rect r ON r.id = t.rect_id ORDER BY t.id', path),
            '"id","group_id","depth","is_spy","is_visible","opacity","transform_id","x","y",'
            '"w","h"\n'
            '0,0,0,0,0,"[NULL]",0,0.000000,0.000000,20.000000,40.000000\n'
            '1,0,1,0,0,1.000000,0,0.000000,0.000000,4.000000,4.000000\n'
            '2,0,1,0,0,"[NULL]",0,0.000000,0.000000,0.000000,0.000000\n'
            '3,0,2,0,0,1.000000,0,0.000000,0.000000,10.000000,10.000000\n'
            '4,0,3,0,1,1.000000,0,0.000000,0.000000,10.000000,10.000000\n'
            '5,0,2,1,1,"[NULL]",0,0.000000,30.000000,10.000000,10.000000\n')
        # not touchable: one empty rect; else the touchable region, moved alike
        self.assertEqual(e.query(
            SF + RECT + 'SELECT f.trace_rect_id, r.x, r.y, r.w, r.h '
            'FROM android_winscope_fill_region f '
            'JOIN android_winscope_rect r ON r.id = f.rect_id ORDER BY f.id;'
            'SELECT * FROM android_winscope_transform', path),
            '"trace_rect_id","x","y","w","h"\n'
            '2,0.000000,0.000000,0.000000,0.000000\n'
            '5,0.000000,35.000000,5.000000,5.000000\n\n'
            '"id","dsdx","dtdx","tx","dtdy","dsdy","ty"\n'
            '0,1.000000,0.000000,0.000000,0.000000,1.000000,0.000000\n')

    def test_hidden_chain_and_cycle(self):
        # 10 is hidden: so are 11 and its child 12 (through 11); 20 and 21
        # are each other's parent: reached from no root, no visibility
        layers = [pb_int(1, 10) + pb_int(22, 1), pb_int(1, 11) + pb_int(25, 10),
                  pb_int(1, 12) + pb_int(25, 11), pb_int(1, 20) + pb_int(25, 21),
                  pb_int(1, 21) + pb_int(25, 20)]
        snapshot = fixed64(1, 5) + pb_bytes(3, b''.join(pb_bytes(1, l) for l in layers))
        path = e.write_temp(self.dir, 'sf_chain.pb', layers_packet(100, snapshot))
        self.assertEqual(e.query(
            'SELECT l.layer_id, a.display_value FROM surfaceflinger_layer l '
            'JOIN args a USING (arg_set_id) WHERE a.key GLOB \'visibility_reason*\' '
            'AND a.display_value GLOB \'*hidden*\' ORDER BY l.layer_id, a.key;'
            'SELECT count(*) FROM surfaceflinger_layer', path),
            '"layer_id","display_value"\n10,"flag is hidden"\n11,"hidden by parent 10"\n'
            '12,"hidden by parent 11"\n\n"count(*)"\n5\n')


class TooManyLayersTest(e.TempDirTest):
    def test_a_snapshot_past_the_cap_keeps_its_layers_without_order(self):
        """16385 opaque layers on one display: their pairwise occlusion is
        quadratic, so the snapshot keeps its layer rows, without visibility
        or rects, and says so in stats."""
        opaque = (pb_int(9, 0) + pb_bytes(20, float32(4, 1.0)) + pb_int(16, 1) +
                  float_rect(45, 0, 0, 10, 10) + float_rect(46, 0, 0, 10, 10))
        layers = b''.join(pb_bytes(1, pb_int(1, k + 1) + pb_int(10, k) + opaque)
                          for k in range(16385))
        snapshot = fixed64(1, 5) + pb_bytes(3, layers)
        path = e.write_temp(self.dir, 'sf_many.pb', layers_packet(100, snapshot))
        self.assertEqual(e.query(
            SF + 'SELECT count(*), sum(is_visible), count(layer_rect_id) '
            'FROM surfaceflinger_layer', path),
            '"count(*)","sum(is_visible)","count(layer_rect_id)"\n16385,0,0\n')
        self.assertEqual(e.query(
            "SELECT value FROM stats WHERE name = 'winscope_sf_layers_visibility_skipped'",
            path), '"value"\n1\n')


    def test_a_snapshot_of_too_many_displays_keeps_its_layers_without_order(self):
        """1025 displays: each layer's display is looked up among them, so
        past 1024 the snapshot's layers are not ordered either."""
        layer = pb_bytes(1, pb_int(1, 1) + pb_int(10, 0) + pb_int(9, 0))
        displays = b''.join(pb_bytes(7, pb_int(1, k) + pb_int(3, k)) for k in range(1025))
        snapshot = fixed64(1, 5) + displays + pb_bytes(3, layer)
        path = e.write_temp(self.dir, 'sf_displays.pb', layers_packet(100, snapshot))
        self.assertEqual(e.query(
            SF + 'SELECT count(*), count(layer_rect_id) FROM surfaceflinger_layer', path),
            '"count(*)","count(layer_rect_id)"\n1,0\n')
        self.assertEqual(e.query(
            "SELECT value FROM stats WHERE name = 'winscope_sf_layers_visibility_skipped'",
            path), '"value"\n1\n')


class TransformTest(e.TempDirTest):
    def test_free_transform(self):
        # a transform that is no plain rotation reads fields 1, 3, 2, 4 as
        # dsdx, dtdx, dtdy, dsdy; the position is its translation; the input
        # frame (1,1)-(4,4) is taken to layer space by its inverse; no layer
        # stack is stack 0
        transform = pb_bytes(23, pb_int(5, 0x8000) + float32(1, 2.0) + float32(2, 3.0) +
                             float32(3, 5.0) + float32(4, 7.0))
        layer = (pb_int(1, 2) + pb_bytes(20, float32(4, 1.0)) + float_rect(46, 0, 0, 1, 1) +
                 transform + pb_bytes(11, float32(1, 11.0) + float32(2, 13.0)) +
                 pb_bytes(47, pb_bytes(3, rect(1, 1, 4, 4))))
        path = e.write_temp(self.dir, 'sf_tf.pb',
                            layers_packet(100, fixed64(1, 5) + pb_bytes(3, pb_bytes(1, layer))))
        self.assertEqual(e.query(
            RECT + 'SELECT * FROM android_winscope_transform;'
            'SELECT t.group_id, t.depth, r.x, r.y, r.w, r.h FROM android_winscope_trace_rect t '
            'JOIN android_winscope_rect r ON r.id = t.rect_id ORDER BY t.id', path),
            '"id","dsdx","dtdx","tx","dtdy","dsdy","ty"\n'
            '0,2.000000,5.000000,11.000000,3.000000,7.000000,13.000000\n\n'
            '"group_id","depth","x","y","w","h"\n'
            '0,0,0.000000,0.000000,0.000000,0.000000\n'
            '0,0,4.000000,-6.000000,6.000000,3.000000\n')


if __name__ == '__main__':
    e.main()
