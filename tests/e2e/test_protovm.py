"""End-to-end: ProtoVM incremental tracing (proto_protovm.h, protovm.h):
SurfaceFlinger layers snapshots rebuilt from patches by a VmProgram and
parsed as snapshots. Traces are generated with weft_e2e's pb_* writers;
every expected answer is worked out by hand from the rules in those
headers."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SELECT, REG_LOAD, MERGE, SET = 1, 2, 3, 4
SRC, DST = 1, 2
SKIP_CURRENT = 1


def field(i, repeated=False):
    return pb_bytes(2, pb_int(1, i) + (pb_int(5, 1) if repeated else b''))


def keyed(key_field, register):
    return pb_bytes(2, pb_int(3, key_field) + pb_int(6, register))


def select(path, cursor=None, create=False):
    return ((pb_int(1, cursor) if cursor else b'') + b''.join(path) +
            (pb_int(3, 1) if create else b''))


def insn(op, body=b'', level=None, nested=()):
    return (pb_bytes(op, body) + (pb_int(6, level) if level else b'') +
            b''.join(pb_bytes(7, n) for n in nested))


def copy(src_path, dst_path, level=None):
    """select SRC src_path { select DST dst_path create { set } }"""
    inner = insn(SELECT, select(dst_path, DST, True), nested=[insn(SET)])
    return insn(SELECT, select(src_path), level, [inner])


# Patches: TracePacket field 94 {1: timestamp, 2: vsync_id, 3: layers
# {1: id, 2: name}}; the state: a TracePacket with a layers snapshot (93).
PROGRAM = b''.join(pb_bytes(2, i) for i in [
    copy([field(94), field(1)], [field(8)]),
    copy([field(94), field(2)], [field(93), field(8)], SKIP_CURRENT),
    insn(SELECT, select([field(94), field(3, repeated=True)]), SKIP_CURRENT, [
        insn(SELECT, select([field(1)]), nested=[insn(REG_LOAD, pb_int(2, 1))]),
        insn(SELECT, select([field(93), field(3), field(1), keyed(1, 1)], DST, True),
             nested=[insn(MERGE)]),
    ]),
])


def layer(i, name):
    return pb_int(1, i) + pb_bytes(2, name)


def patch(seq, ts, vsync=None, layers=(), with_ts=True):
    """A patch packet at ts - 1 whose body sets timestamp ts (unless not
    with_ts)."""
    body = (pb_int(1, ts) if with_ts else b'') + \
        (pb_int(2, vsync) if vsync is not None else b'') + \
        b''.join(pb_bytes(3, l) for l in layers)
    return pb_packet(pb_int(8, ts - 1), pb_int(10, seq), pb_bytes(94, body))


def setup(producers=(10, 11)):
    """Provenance: producer 10 writes sequence 1, 11 sequence 2, 12
    sequence 3; one machine for `producers`, its initial state a snapshot
    with `where` set."""
    seqs = b''.join(pb_bytes(1, pb_int(1, s) + pb_int(2, p)) for s, p in ((1, 10), (2, 11), (3, 12)))
    state = pb_bytes(93, pb_bytes(2, 'initial'))
    instance = pb_bytes(1, PROGRAM) + pb_bytes(2, state) + pb_int(3, 64) + \
        b''.join(pb_int(4, p) for p in producers)
    return (pb_packet(pb_int(10, 9999), pb_bytes(124, pb_bytes(2, seqs))) +
            pb_packet(pb_int(10, 9999), pb_bytes(125, pb_bytes(1, instance))))


SNAPSHOTS = ('SELECT s.id, s.ts, s.sequence_id, a.key, a.display_value '
             'FROM surfaceflinger_layers_snapshot s JOIN args a USING (arg_set_id) '
             "WHERE a.key IN ('where', 'vsync_id') ORDER BY s.id, a.key")
LAYERS = 'SELECT snapshot_id, layer_id, layer_name FROM surfaceflinger_layer ORDER BY 1, 2'
STATS = "SELECT name, value FROM stats WHERE name GLOB 'protovm*' AND value > 0 ORDER BY name"


class ProtoVmTest(e.TempDirTest):
    def load(self, data, sql):
        return e.query(sql, e.write_temp(self.dir, 't.pb', data))

    def test_snapshots_rebuilt_from_patches(self):
        data = setup() + patch(1, 1001, 7, [layer(1, 'a'), layer(2, 'b')]) + \
            patch(2, 2001, 8, [layer(2, 'b2'), layer(3, 'c')])
        self.assertEqual(self.load(data, SNAPSHOTS), '\n'.join([
            '"id","ts","sequence_id","key","display_value"',
            '0,1001,1,"vsync_id","7"',
            '0,1001,1,"where","initial"',
            # the second sequence's producer shares the machine
            '1,2001,2,"vsync_id","8"',
            '1,2001,2,"where","initial"', '']))
        self.assertEqual(self.load(data, LAYERS), '\n'.join([
            '"snapshot_id","layer_id","layer_name"',
            '0,1,"a"', '0,2,"b"',
            '1,1,"a"', '1,2,"b2"', '1,3,"c"', '']))

    def test_untaken_patch_is_an_ordinary_packet(self):
        # no timestamp in the patch: its first instruction fails (ERROR), so
        # the packet stays a surfaceflinger_transactions entry; sequence 3
        # has no machine at all
        data = setup() + patch(1, 1001, 7) + patch(1, 2001, 5, with_ts=False) + patch(3, 3001, 6)
        out = self.load(data, 'SELECT ts, vsync_id FROM surfaceflinger_transactions ORDER BY ts;'
                        'SELECT ts FROM surfaceflinger_layers_snapshot;' + STATS)
        self.assertEqual(out, '\n'.join([
            '"ts","vsync_id"', '2000,5', '3000,6', '',
            '"ts"', '1001', '',
            '"name","value"', '']))

    def test_abort_is_counted_and_kept(self):
        # a layer id that is a string cannot be loaded in a register: the
        # machine aborts, keeping what the patch changed before (vsync 9,
        # layer 1 renamed), and the packet is an ordinary one
        bad = pb_bytes(1, 'x') + pb_bytes(2, 'z')
        data = setup() + patch(1, 1001, 7, [layer(1, 'a')]) + \
            patch(1, 1501, 9, [layer(1, 'q'), bad]) + patch(1, 2001, None, [])
        out = self.load(data, SNAPSHOTS + ';' + LAYERS + ';' + STATS +
                        ';SELECT ts, vsync_id FROM surfaceflinger_transactions')
        self.assertEqual(out, '\n'.join([
            '"id","ts","sequence_id","key","display_value"',
            '0,1001,1,"vsync_id","7"', '0,1001,1,"where","initial"',
            '1,2001,1,"vsync_id","9"', '1,2001,1,"where","initial"',
            '', '"snapshot_id","layer_id","layer_name"', '0,1,"a"', '1,1,"q"', '',
            '"name","value"', '"protovm_abort",1', '',
            '"ts","vsync_id"', '1500,9', '']))

    def test_any_packet_of_the_sequence_is_a_patch(self):
        # a program reading only the packet timestamp takes a for_testing
        # packet as well
        program = pb_bytes(2, copy([field(8)], [field(8)]))
        seqs = pb_bytes(1, pb_int(1, 1) + pb_int(2, 10))
        instance = pb_bytes(1, program) + pb_bytes(2, pb_bytes(93, pb_bytes(2, 'w'))) + \
            pb_int(3, 64) + pb_int(4, 10)
        data = (pb_packet(pb_int(10, 9), pb_bytes(124, pb_bytes(2, seqs))) +
                pb_packet(pb_int(10, 9), pb_bytes(125, pb_bytes(1, instance))) +
                pb_packet(pb_int(8, 5000), pb_int(10, 1), pb_bytes(900, pb_int(2, 1))))
        self.assertEqual(self.load(data, 'SELECT ts, sequence_id FROM surfaceflinger_layers_snapshot'),
                         '"ts","sequence_id"\n5000,1\n')

    def test_memory_limit_charged_as_perfetto(self):
        # 1 KiB: decoding the initial state copies its 93 field (n + 3
        # bytes, and 96 for the field's node and entry) while the state's
        # n + 7 bytes still count: n = 459 fits, 460 aborts
        program = pb_bytes(2, copy([field(8)], [field(8)]))
        seqs = pb_bytes(1, pb_int(1, 1) + pb_int(2, 10))
        counts = []
        for n in (459, 460):
            instance = pb_bytes(1, program) + pb_bytes(2, pb_bytes(93, pb_bytes(2, 'x' * n))) + \
                pb_int(3, 1) + pb_int(4, 10)
            data = (pb_packet(pb_int(10, 9), pb_bytes(124, pb_bytes(2, seqs))) +
                    pb_packet(pb_int(10, 9), pb_bytes(125, pb_bytes(1, instance))) +
                    pb_packet(pb_int(8, 5000), pb_int(10, 1), pb_bytes(900, b'')))
            counts.append(self.load(data, 'SELECT count(*) FROM surfaceflinger_layers_snapshot;' +
                                    STATS))
        self.assertEqual(counts, ['"count(*)"\n1\n\n"name","value"\n',
                                  '"count(*)"\n0\n\n"name","value"\n"protovm_abort",1\n'])

    def test_unmapped_producer_counted(self):
        data = setup(producers=(10, 77)) + patch(1, 1001, 7)
        out = self.load(data, STATS + ';SELECT count(*) FROM surfaceflinger_layers_snapshot')
        self.assertEqual(out, '\n'.join([
            '"name","value"', '"protovm_registration_error",1', '',
            '"count(*)"', '1', '']))


if __name__ == '__main__':
    e.main()
