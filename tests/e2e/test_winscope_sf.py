"""End-to-end: the SurfaceFlinger winscope packets (proto_winscope_sf.c,
model/winscope_sf.c). Traces are generated with weft_e2e's pb_* writers;
every expected answer is worked out by hand from the rules in
proto_winscope_sf.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SF = 'INCLUDE PERFETTO MODULE android.winscope.surfaceflinger;'


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


if __name__ == '__main__':
    e.main()
