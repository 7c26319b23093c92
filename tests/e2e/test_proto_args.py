"""End-to-end: the args of Perfetto TrackEvents (src/import/proto/proto_args.h),
on traces written field by field here. Expected rows follow Perfetto's rules:
debug annotations under "debug.", typed fields and extensions by their
schema names, interned source locations expanded, end-event args joining the
slice's."""

import weft_e2e as e
from weft_e2e import pb_bytes, pb_double, pb_int, pb_packet

# TracePacket fields.
TIMESTAMP, SEQ, TRACK_EVENT, SEQ_FLAGS, INTERNED, DEFAULTS, DESCRIPTOR = 8, 10, 11, 13, 12, 59, 60
# TrackEvent fields.
ANNOTATION, TASK, TYPE, TRACK_UUID, NAME, SOURCE_IID, MOJO, ACTIVE = 4, 5, 9, 11, 23, 34, 38, 49
APP_STATE, TASK_ANNOTATOR = 1000, 1002  # ChromeTrackEvent extensions
BEGIN, END, INSTANT = 1, 2, 3


def event(ts, *fields, seq=1):
    return pb_packet(pb_int(TIMESTAMP, ts), pb_int(SEQ, seq),
                     pb_bytes(TRACK_EVENT, b''.join(fields)))


def annotation(name, *value):
    return pb_bytes(ANNOTATION, pb_bytes(10, name) + b''.join(value))


def source_location(iid, file_name, function, line):
    return pb_bytes(4, pb_int(1, iid) + pb_bytes(2, file_name) +
                    pb_bytes(3, function) + pb_int(4, line))


def start(seq=1):
    """Incremental state cleared, interned data for the tests' iids."""
    interned = (source_location(7, 'a/b.cc', 'Post', 42) +
                pb_bytes(3, pb_int(1, 5) + pb_bytes(2, 'interned.name')) +
                pb_bytes(29, pb_int(1, 6) + pb_bytes(2, 'interned value')))
    return pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, seq), pb_int(SEQ_FLAGS, 1),
                     pb_bytes(INTERNED, interned))


class ProtoArgsTest(e.TempDirTest):
    def load(self, trace, sql):
        return e.query(sql, e.write_temp(self.dir, 'trace.pb', trace))

    def slice_args(self, trace, name):
        return self.load(trace, 'select a.key, a.display_value from slice s '
                         'join args a using(arg_set_id) '
                         f"where s.name = '{name}' order by a.id")

    def test_debug_annotations(self):
        nested_dict = pb_bytes(8, pb_int(1, 1) + pb_bytes(2, 'k') +
                               pb_bytes(3, pb_int(5, 9)) + pb_bytes(2, 'k2') +
                               pb_bytes(3, pb_bytes(8, 's')))
        nested_array = pb_bytes(8, pb_int(1, 2) + pb_bytes(4, pb_int(7, 1)) +
                                pb_bytes(4, b'') + pb_bytes(4, pb_double(6, 0.5)))
        trace = start() + event(
            10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'ev'),
            annotation('a.b[c]', pb_int(4, -3)),
            annotation('dict', pb_bytes(11, pb_bytes(10, 'x') + pb_int(3, 7)),
                       pb_bytes(11, pb_bytes(10, 'y') + pb_int(2, 1))),
            annotation('arr', pb_bytes(12, pb_bytes(6, 'p')), pb_bytes(12, b''),
                       pb_bytes(12, pb_bytes(6, 'q'))),
            annotation('nd', nested_dict), annotation('na', nested_array),
            pb_bytes(ANNOTATION, pb_int(1, 5) + pb_int(17, 6)),
            annotation('ptr', pb_int(7, 0x1234)),
            annotation('both', pb_int(3, 8), pb_int(2, 0)))
        out = self.slice_args(trace, 'ev')
        # Names: '.', '[' and ']' become '_'. An empty array entry takes no
        # index; a value field's kind wins by precedence (bool before uint).
        self.assertEqual(out, '"key","display_value"\n'
                         '"debug.a_b_c_","-3"\n'
                         '"debug.dict.x","7"\n"debug.dict.y","true"\n'
                         '"debug.arr[0]","p"\n"debug.arr[1]","q"\n'
                         '"debug.nd.k","9"\n"debug.nd.k2","s"\n'
                         '"debug.na[0]","true"\n"debug.na[1]","0.5"\n'
                         '"debug.interned_name","interned value"\n'
                         '"debug.ptr","0x1234"\n"debug.both","false"\n')

    def test_a_key_given_twice_keeps_its_place_and_last_value(self):
        trace = start() + event(10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'dup'),
                                annotation('a', pb_int(4, 1)), annotation('b', pb_int(4, 2)),
                                annotation('a', pb_int(4, 3)))
        self.assertEqual(self.slice_args(trace, 'dup'),
                         '"key","display_value"\n"debug.a","3"\n"debug.b","2"\n')
        # the same in a set of more than 32 args
        many = [annotation('k%d' % i, pb_int(4, i)) for i in range(40)]
        trace = start() + event(10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'big'), *many,
                                annotation('k5', pb_int(4, 99)))
        out = self.slice_args(trace, 'big').splitlines()[1:]
        self.assertEqual(len(out), 40)
        self.assertEqual(out[5], '"debug.k5","99"')

    def test_mojo_method_becomes_a_native_symbol(self):
        def interned(ranged):
            rng = pb_int(4, 4096) + pb_int(5, 8192) if ranged else b''
            return pb_bytes(INTERNED, pb_bytes(17, pb_int(1, 1) + pb_bytes(2, 'lib.so')) +
                            pb_bytes(16, pb_int(1, 2) + pb_bytes(2, '\x01\x02')) +
                            pb_bytes(19, pb_int(1, 1) + pb_int(2, 2) + pb_int(7, 1) + rng) +
                            pb_bytes(28, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 123)) +
                            pb_bytes(28, pb_int(1, 2) + pb_int(2, 7) + pb_int(3, 5)))

        def mojo(ts, name, iid, seq):
            info = pb_bytes(1, 'tag') + pb_int(4, iid) + pb_int(5, 1)
            return event(ts, pb_int(TYPE, INSTANT), pb_bytes(NAME, name),
                         pb_bytes(MOJO, info), seq=seq)

        def trace(ranged, pids=()):
            def start(seq):
                # pids: the sequences' thread descriptors' processes, if any
                thread = (pb_bytes(44, pb_int(1, pids[seq - 1]) + pb_int(2, pids[seq - 1]))
                          if pids else b'')
                return pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, seq), pb_int(SEQ_FLAGS, 1),
                                 interned(ranged), thread)
            return (start(1) + start(2) + mojo(10, 'a', 1, 1) + mojo(11, 'b', 1, 2) +
                    mojo(12, 'missing', 9, 1) + mojo(13, 'nomap', 2, 1))

        # the location's mapping and pc, after the other args; an unknown
        # location or mapping leaves the raw iid and counts
        self.assertEqual(self.slice_args(trace(False), 'a').splitlines()[1:], [
            '"chrome_mojo_event_info.watcher_notify_interface_tag","tag"',
            '"chrome_mojo_event_info.is_reply","true"',
            '"chrome_mojo_event_info.mojo_interface_method.native_symbol.mapping_id","0"',
            '"chrome_mojo_event_info.mojo_interface_method.native_symbol.rel_pc","123"'])
        self.assertIn('"chrome_mojo_event_info.mojo_interface_method_iid","9"',
                      self.slice_args(trace(False), 'missing'))
        self.assertIn('"chrome_mojo_event_info.mojo_interface_method_iid","2"',
                      self.slice_args(trace(False), 'nomap'))
        self.assertEqual(self.load(trace(False), "select name, value from stats where name in "
                                   "('interned_data_tokenizer_errors', "
                                   "'stackprofile_invalid_mapping_id') order by name"),
                         '"name","value"\n"interned_data_tokenizer_errors",2\n'
                         '"stackprofile_invalid_mapping_id",1\n')
        # a mapping is interned by its fields unless it has an address
        # range and its sequence a thread: then it is a row of the thread's
        # process per sequence
        sql = ("select s.name, a.display_value from slice s join args a using(arg_set_id) "
               "where a.key glob '*mapping_id' order by s.ts")
        self.assertEqual(self.load(trace(False), sql).splitlines()[1:], ['"a","0"', '"b","0"'])
        self.assertEqual(self.load(trace(True), sql).splitlines()[1:], ['"a","0"', '"b","0"'])
        self.assertEqual(self.load(trace(False, (5, 5)), sql).splitlines()[1:],
                         ['"a","0"', '"b","0"'])
        self.assertEqual(self.load(trace(True, (5, 5)), sql).splitlines()[1:],
                         ['"a","0"', '"b","1"'])
        self.assertEqual(self.load(trace(True, (5, 6)), sql).splitlines()[1:],
                         ['"a","0"', '"b","1"'])

    def test_module_symbols_name_mojo_methods(self):
        interned = pb_bytes(INTERNED, pb_bytes(17, pb_int(1, 1) + pb_bytes(2, 'lib.so')) +
                            pb_bytes(16, pb_int(1, 2) + pb_bytes(2, 'bid')) +
                            pb_bytes(19, pb_int(1, 1) + pb_int(2, 2) + pb_int(7, 1)) +
                            b''.join(pb_bytes(28, pb_int(1, i) + pb_int(2, 1) + pb_int(3, pc))
                                     for i, pc in ((1, 16), (2, 32), (3, 48), (4, 64))))
        first = pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), pb_int(SEQ_FLAGS, 1), interned)

        def mojo(ts, iid):
            return event(ts, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'm%d' % iid),
                         pb_bytes(MOJO, pb_int(4, iid)))

        def symbol(address, name):
            return pb_bytes(3, pb_int(1, address) + pb_bytes(2, pb_bytes(1, name)))

        # ModuleSymbols (build id "bid", given raw) come last, as in real traces.
        symbols = pb_packet(pb_bytes(61, pb_bytes(1, '/lib.so') + pb_bytes(2, 'bid') +
                                     symbol(16, 'a::mojom::Foo::Bar_Sym::IPCStableHash') +
                                     symbol(32, 'a::Baz_Sym::IPCStableHash()') +
                                     symbol(48, 'Plain::Func')))
        trace = first + b''.join(mojo(10 + i, i) for i in range(1, 5)) + symbols
        out = self.load(trace, "select s.name, a.key, a.display_value from slice s "
                        "join args a using(arg_set_id) order by s.ts, a.id")
        self.assertEqual(out.splitlines()[1:], [
            '"m1","chrome_mojo_event_info.mojo_method_name","a::mojom::Foo::Bar"',
            '"m1","chrome_mojo_event_info.mojo_interface_tag","a.mojom.Foo"',
            '"m2","chrome_mojo_event_info.mojo_method_name","a::Baz"',
            '"m2","chrome_mojo_event_info.mojo_interface_tag","a"',
            '"m3","chrome_mojo_event_info.mojo_method_name","Plain::Func"',
            '"m3","chrome_mojo_event_info.mojo_interface_tag","Plain::Func"',
            # no symbol for its pc: left as it was
            '"m4","chrome_mojo_event_info.mojo_interface_method.native_symbol.mapping_id","0"',
            '"m4","chrome_mojo_event_info.mojo_interface_method.native_symbol.rel_pc","64"'])

    def test_java_class_name_args_are_deobfuscated(self):
        mapping = pb_packet(pb_bytes(64, pb_bytes(1, 'some.pkg') + pb_int(2, 1) +
                                     pb_bytes(3, pb_bytes(1, 'abc') + pb_bytes(2, 'a.Real'))))
        view = lambda name: pb_bytes(2, pb_bytes(5, name))  # View.class_name
        dump = pb_bytes(1022, pb_bytes(1, pb_bytes(1, 'abc') + view('abc') + view('xyz')))
        trace = start() + event(10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'e'),
                                pb_bytes(26, pb_bytes(1, 'abc')), dump) + mapping
        # only the Java class name args take the mapping's names
        self.assertEqual(self.slice_args(trace, 'e').splitlines()[1:], [
            '"chrome_keyed_service.name","abc"',
            '"android_view_dump.activity[0].name","abc"',
            '"android_view_dump.activity[0].view[0].class_name","a.Real"',
            '"android_view_dump.activity[0].view[1].class_name","xyz"'])

    def test_translation_tables(self):
        entry = lambda k, v: pb_bytes(1, (pb_bytes(1, k) if isinstance(k, str) else pb_int(1, k)) +
                                      pb_bytes(2, v))
        tables = (pb_packet(pb_bytes(82, pb_bytes(1, entry(10, 'hist10')))) +
                  pb_packet(pb_bytes(82, pb_bytes(2, entry(20, 'act20')))))
        events = (event(10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'h'),
                        pb_bytes(28, pb_int(1, 10) + pb_int(3, 100))) +
                  event(11, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'h2'),
                        pb_bytes(28, pb_int(1, 11) + pb_int(3, 100))) +
                  event(12, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'raw'),
                        pb_bytes(25, pb_int(2, 20))))
        # the slice-name table comes after the events in the file: tables
        # apply to the whole trace
        names = pb_packet(pb_bytes(82, pb_bytes(4, entry('raw', 'mapped'))))
        trace = tables + start() + events + names
        self.assertEqual(self.slice_args(trace, 'h').splitlines()[1:], [
            '"chrome_histogram_sample.name_hash","10"', '"chrome_histogram_sample.name","hist10"',
            '"chrome_histogram_sample.sample","100"'])
        self.assertEqual(self.slice_args(trace, 'h2').splitlines()[1:], [
            '"chrome_histogram_sample.name_hash","11"', '"chrome_histogram_sample.sample","100"'])
        self.assertEqual(self.slice_args(trace, 'mapped').splitlines()[1:], [
            '"chrome_user_event.action_hash","20"', '"chrome_user_event.action","act20"'])

    def test_uint_values_show_unsigned(self):
        # uint_value (field 3) above 2^63 - 1: shown as the unsigned number
        values = [0, 7, 2**63 - 1, 2**63, 2**64 - 1998, 2**64 - 10, 2**64 - 1]
        trace = start() + event(10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'u'),
                                *[annotation('v%d' % i, pb_int(3, v))
                                  for i, v in enumerate(values)])
        out = self.load(trace, "select value_type, display_value from args "
                        "where key glob 'debug.v*' order by id")
        self.assertEqual(out.splitlines()[1:], ['"uint","%d"' % v for v in values])

    def test_typed_fields_and_extensions(self):
        mojo = pb_bytes(MOJO, pb_bytes(1, 'Watcher') + pb_int(2, 77))
        active = pb_bytes(ACTIVE, pb_int(1, 10) + pb_int(1, 11))
        annotator = pb_bytes(TASK_ANNOTATOR, pb_int(2, 5) + pb_int(3, 2))
        trace = start() + event(
            10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'typed'), mojo, active,
            pb_int(APP_STATE, 1), annotator, pb_bytes(TASK, pb_int(1, 7)),
            pb_int(SOURCE_IID, 7), pb_bytes(1999, b'unknown extension'))
        out = self.slice_args(trace, 'typed')
        # The interned source locations of source_location_iid and
        # task_execution come first; then the reflected fields in wire order:
        # enums by value name, repeated fields indexed; an extension the
        # schema does not know adds nothing.
        self.assertEqual(out, '"key","display_value"\n'
                         '"source.file_name","a/b.cc"\n'
                         '"source.function_name","Post"\n'
                         '"source.line_number","42"\n'
                         '"task.posted_from.file_name","a/b.cc"\n'
                         '"task.posted_from.function_name","Post"\n'
                         '"task.posted_from.line_number","42"\n'
                         '"chrome_mojo_event_info.watcher_notify_interface_tag","Watcher"\n'
                         '"chrome_mojo_event_info.ipc_hash","77"\n'
                         '"chrome_active_processes.pid[0]","10"\n'
                         '"chrome_active_processes.pid[1]","11"\n'
                         '"chrome_app_state","APP_STATE_FOREGROUND"\n'
                         '"chrome_task_annotator.task_delay_us","5"\n'
                         '"chrome_task_annotator.delay_policy","PRECISE"\n'
                         '"source_location_iid","7"\n')

    def test_order_specials_reflected_then_annotations(self):
        trace = start() + event(
            10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'o'), annotation('d1', pb_int(4, 1)),
            pb_bytes(MOJO, pb_bytes(1, 'W')), annotation('d2', pb_int(4, 2)),
            pb_int(APP_STATE, 2), pb_bytes(TASK, pb_int(1, 7)))
        out = self.slice_args(trace, 'o')
        self.assertEqual(out, '"key","display_value"\n'
                         '"task.posted_from.file_name","a/b.cc"\n'
                         '"task.posted_from.function_name","Post"\n'
                         '"task.posted_from.line_number","42"\n'
                         '"chrome_mojo_event_info.watcher_notify_interface_tag","W"\n'
                         '"chrome_app_state","APP_STATE_BACKGROUND"\n'
                         '"debug.d1","1"\n"debug.d2","2"\n')

    def test_empty_message_is_a_null_arg(self):
        trace = start() + event(10, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'e'),
                                pb_bytes(MOJO, b''))
        out = self.load(trace, "select key, value_type from args "
                        "where key like 'chrome_mojo%'")
        self.assertEqual(out, '"key","value_type"\n"chrome_mojo_event_info","null"\n')

    def test_gpu_api_and_enum_values_without_a_name(self):
        trace = start() + b''.join(
            event(10 + v, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'g%d' % v), pb_int(3001, v))
            for v in (2, 4, 6)) + event(20, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'app'),
                                        pb_int(APP_STATE, 99))
        out = self.load(trace, "select s.name, a.key, a.value_type, a.display_value from slice s "
                        "join args a using(arg_set_id) order by s.ts")
        # A value the enum does not name is its number, as a string.
        self.assertEqual(out, '"name","key","value_type","display_value"\n'
                         '"g2","gpu_api","string","GPU_API_VULKAN"\n'
                         '"g4","gpu_api","string","GPU_API_CUDA"\n'
                         '"g6","gpu_api","string","6"\n'
                         '"app","chrome_app_state","string","99"\n')

    def test_end_event_args_join_the_slice(self):
        trace = start() + event(
            10, pb_int(TYPE, BEGIN), pb_bytes(NAME, 's'),
            annotation('x', pb_int(4, 1)), annotation('y', pb_int(4, 2)))
        trace += event(20, pb_int(TYPE, END), annotation('x', pb_int(4, 5)),
                       annotation('z', pb_int(4, 6)))
        out = self.slice_args(trace, 's')
        # x keeps its place and takes the end's value; z is appended.
        self.assertEqual(out, '"key","display_value"\n'
                         '"debug.x","5"\n"debug.y","2"\n"debug.z","6"\n')
        out = self.load(trace, 'select dur from slice')
        self.assertEqual(out, '"dur"\n10\n')

    def test_passthrough_utid_on_process_tracks(self):
        process = pb_bytes(DESCRIPTOR, pb_int(1, 1) + pb_bytes(3, pb_int(1, 10)))
        thread = pb_bytes(DESCRIPTOR, pb_int(1, 2) + pb_int(5, 1) +
                          pb_bytes(4, pb_int(1, 10) + pb_int(2, 11)))
        child = pb_bytes(DESCRIPTOR, pb_int(1, 3) + pb_int(5, 1) + pb_bytes(2, 'async'))
        trace = (pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), pb_int(SEQ_FLAGS, 1),
                           pb_bytes(DEFAULTS, pb_bytes(11, pb_int(11, 2))), process) +
                 pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), thread) +
                 pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), child) +
                 event(5, pb_int(TYPE, INSTANT), pb_int(TRACK_UUID, 3),
                       pb_bytes(NAME, 'on_async')) +
                 event(6, pb_int(TYPE, INSTANT), pb_bytes(NAME, 'on_thread')) +
                 event(7, pb_bytes(6, pb_int(2, ord('R'))), pb_bytes(NAME, 'mark')))
        out = self.load(trace, "select s.name, a.key, a.display_value, t.tid "
                        "from slice s left join args a using(arg_set_id) "
                        "left join thread t on t.utid = a.int_value "
                        "and a.key = 'legacy_event.passthrough_utid' order by s.ts")
        # The sequence's thread (from its thread TrackDescriptor, the state
        # being valid) is passed through on the process's track only; a
        # legacy MARK keeps its phase.
        self.assertEqual(out, '"name","key","display_value","tid"\n'
                         '"on_async","legacy_event.passthrough_utid","2",11\n'
                         '"on_thread","[NULL]","[NULL]","[NULL]"\n'
                         '"mark","legacy_event.phase","R","[NULL]"\n')

    def test_state_not_valid_gives_no_sequence_thread(self):
        process = pb_bytes(DESCRIPTOR, pb_int(1, 1) + pb_bytes(3, pb_int(1, 10)))
        thread = pb_bytes(DESCRIPTOR, pb_int(1, 2) + pb_int(5, 1) +
                          pb_bytes(4, pb_int(1, 10) + pb_int(2, 11)))
        child = pb_bytes(DESCRIPTOR, pb_int(1, 3) + pb_int(5, 1) + pb_bytes(2, 'async'))
        trace = (pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), process) +
                 pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), thread) +
                 pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), child) +
                 event(5, pb_int(TYPE, INSTANT), pb_int(TRACK_UUID, 3),
                       pb_bytes(NAME, 'on_async')))
        out = self.load(trace, 'select count(*) from args '
                        "where key = 'legacy_event.passthrough_utid'")
        self.assertEqual(out, '"count(*)"\n0\n')


if __name__ == '__main__':
    e.main()
