"""End-to-end: Java deobfuscation of frames (model/stack_profile_deobf.c)
and ModuleSymbols symbols of frames (model/stack_profile_symbolize.c) on
traces generated here. Every expected answer is worked out by hand from the
rules written in those files."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
from test_profiles import (CALLSTACKS, FRAMES, FUNCTION_NAMES, MAPPING_PATHS, MAPPINGS,
                           BUILD_IDS, callstack, clock_snapshot, frame, heap_dump, heap_sample,
                           interned_packet, istr, mapping)

APP = 'data/app/com.app-XYZ==/base.apk'


def processes(*procs):
    """A process tree of (pid, uid) pairs."""
    body = b''.join(pb_bytes(1, pb_int(1, pid) + pb_bytes(3, 'p%d' % pid) + pb_int(5, uid))
                    for pid, uid in procs)
    return pb_packet(pb_int(8, 1), pb_bytes(2, body))


def packages(*pairs):
    """A packages_list of (name, uid) pairs."""
    body = b''.join(pb_bytes(1, pb_bytes(1, name) + pb_int(2, uid)) for name, uid in pairs)
    return pb_packet(pb_bytes(47, body))


def method(obf, deobf, start=None, end=None, source=None):
    return (pb_bytes(1, obf) + pb_bytes(2, deobf) +
            (pb_int(3, start) if start is not None else b'') +
            (pb_int(4, end) if end is not None else b'') +
            (pb_int(5, source) if source is not None else b''))


def klass(obf, deobf, *methods):
    return pb_bytes(1, obf) + pb_bytes(2, deobf) + b''.join(pb_bytes(4, m) for m in methods)


def deobfuscation(package, *classes):
    body = (pb_bytes(1, package) if package is not None else b'')
    return pb_packet(pb_bytes(64, body + b''.join(pb_bytes(3, c) for c in classes)))


def module_symbols(path, build_id, *addresses):
    """ModuleSymbols: addresses are (address, [(function, file, line)]); a
    function of None leaves the field out."""
    body = pb_bytes(1, path) + pb_bytes(2, build_id)
    for address, lines in addresses:
        ls = b''.join(pb_bytes(2, (b'' if fn is None else pb_bytes(1, fn)) +
                               pb_bytes(2, file) + pb_int(3, line))
                      for fn, file, line in lines)
        body += pb_bytes(3, pb_int(1, address) + ls)
    return pb_packet(pb_bytes(61, body))


def java_frames(path=None, names=('a.a',)):
    """Frames named `names` at pcs 16, 32, ... of one mapping (named path,
    build id "ab"), callstack 1 through all of them."""
    fields = [(BUILD_IDS, istr(1, b'\xab'))]
    fields += [(FUNCTION_NAMES, istr(i + 1, n)) for i, n in enumerate(names)]
    if path:
        fields += [(MAPPING_PATHS, istr(1, path)), (MAPPINGS, mapping(1, 1, paths=(1,)))]
    else:
        fields += [(MAPPINGS, mapping(1, 1))]
    fields += [(FRAMES, frame(i + 1, i + 1, 1, 16 * (i + 1))) for i in range(len(names))]
    fields.append((CALLSTACKS, callstack(1, *range(1, len(names) + 1))))
    return interned_packet(*fields)


class DeobfuscationTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'deobf.pb', clock_snapshot(0, 0) + b''.join(packets))

    def names(self, path):
        return e.query('select name, deobfuscated_name from stack_profile_frame order by id',
                       path)

    def test_a_frame_of_no_known_package_takes_its_process_package(self):
        # one frame, sampled by pid 10 (uid 10001 = com.one) first: it is
        # com.one's; com.two's renaming does not apply to it
        path = self.trace(processes((10, 10001), (20, 10002)),
                          packages(('com.one', 10001), ('com.two', 10002)),
                          java_frames(),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          heap_dump(11, 20, 'h', heap_sample(1, 1, 0, 1, 0)),
                          deobfuscation('com.two', klass('a', 'Two', method('a', 'two'))),
                          deobfuscation('com.one', klass('a', 'One', method('a', 'one'))))
        self.assertEqual(self.names(path), '"name","deobfuscated_name"\n"a.a","One.one"\n')

    def test_a_frame_of_no_package_at_all_is_not_renamed(self):
        # its process has no uid in packages_list
        path = self.trace(processes((10, 10001)), java_frames(),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          deobfuscation('com.one', klass('a', 'One', method('a', 'one'))))
        self.assertEqual(self.names(path), '"name","deobfuscated_name"\n"a.a","[NULL]"\n')

    def test_packets_apply_in_order_and_memfd_frames_take_every_package(self):
        path = self.trace(java_frames('memfd:jit-cache'),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          deobfuscation('com.one', klass('a', 'One', method('a', 'one'))),
                          deobfuscation('com.two', klass('a', 'Two', method('a', 'two'))),
                          # a packet of no package renames no frame
                          deobfuscation(None, klass('a', 'None', method('a', 'none'))),
                          deobfuscation('', klass('a', 'Empty', method('a', 'empty'))))
        self.assertEqual(self.names(path), '"name","deobfuscated_name"\n"a.a","Two.two"\n')

    def test_fields_rename_no_frame_and_ambiguous_names_are_joined(self):
        field = pb_bytes(3, pb_bytes(1, 'b') + pb_bytes(2, 'field'))
        path = self.trace(java_frames('/' + APP, names=('a.a', 'a.b', 'b.a')),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          deobfuscation('com.app',
                                        klass('a', 'com.A', method('a', 'zed'), method('a', 'alpha'),
                                              method('a', 'zed')) + field,
                                        klass('b', 'com.B', method('a', 'x')),
                                        klass('b', 'com.B', method('a', 'x'))))
        # distinct renamings sorted and joined; the same one twice is one
        self.assertEqual(self.names(path), '"name","deobfuscated_name"\n'
                         '"a.a","com.A.alpha | com.A.zed"\n"a.b","[NULL]"\n"b.a","com.B.x"\n')

    def test_app_paths_without_a_package_are_counted_and_guessed(self):
        def trace(path):
            return e.write_temp(self.dir, 'p.pb', clock_snapshot(0, 0) + b''.join([
                processes((10, 10001)), packages(('com.app', 10001)), java_frames(path),
                heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                deobfuscation('com.app', klass('a', 'A', method('a', 'm')))]))
        query = ("select f.deobfuscated_name, (select value from stats "
                 "where name = 'deobfuscate_location_parse_error') as errors "
                 "from stack_profile_frame f")
        # no "<package>-": counted, and the package is its process's
        self.assertEqual(e.query(query, trace('data/app/com.app/base.apk')),
                         '"deobfuscated_name","errors"\n"A.m",1\n')
        # a package of its own (that no mapping names) is not guessed
        self.assertEqual(e.query(query, trace('data/app/com.other-1/base.apk')),
                         '"deobfuscated_name","errors"\n"[NULL]",0\n')
        self.assertEqual(e.query(query, trace('data/app/~~r==/com.app-1/base.apk')),
                         '"deobfuscated_name","errors"\n"A.m",0\n')

    def test_module_symbols_give_frames_symbol_sets(self):
        lib = '/system/lib.so'
        path = self.trace(java_frames(lib[1:], names=('f', 'g')),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          module_symbols(lib, b'\xab', (16, [('inl', 'x.c', 7), ('f2', '', 9)]),
                                         (48, [('h', 'y.c', 1)])),
                          module_symbols(lib, b'\xcd', (32, [('g2', 'z.c', 3)])))
        # one set per address: a line number only beside a file; address 48
        # has no frame, the second module no mapping: both counted
        self.assertEqual(e.query('select * from stack_profile_symbol', path),
                         '"id","symbol_set_id","name","source_file","line_number","inlined"\n'
                         '0,0,"inl","x.c",7,"[NULL]"\n1,0,"f2","[NULL]","[NULL]","[NULL]"\n'
                         '2,2,"h","y.c",1,"[NULL]"\n')
        self.assertEqual(e.query('select name, symbol_set_id from stack_profile_frame '
                                 'order by id', path),
                         '"name","symbol_set_id"\n"f",0\n"g","[NULL]"\n')
        self.assertEqual(e.query("select name, value from stats where name in "
                                 "('stackprofile_invalid_frame_id', "
                                 "'stackprofile_invalid_mapping_id') order by name", path),
                         '"name","value"\n"stackprofile_invalid_frame_id",1\n'
                         '"stackprofile_invalid_mapping_id",1\n')

    def test_a_symbol_line_without_function_name_has_a_null_name(self):
        lib = '/system/lib.so'
        path = self.trace(java_frames(lib[1:], names=('f', 'g')),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          module_symbols(lib, b'\xab', (16, [(None, 'x.c', 7), ('', 'y.c', 8)]),
                                         (32, [(None, 'z.c', 1)])))
        # absent: NULL; present but empty: the empty string (the reference's answer)
        self.assertEqual(e.query('select id, name is null as absent, name, source_file '
                                 'from stack_profile_symbol order by id', path),
                         '"id","absent","name","source_file"\n'
                         '0,1,"[NULL]","x.c"\n1,0,"","y.c"\n2,1,"[NULL]","z.c"\n')

    def test_a_symbol_line_picks_the_inline_chain(self):
        path = self.trace(java_frames('/' + APP, names=('a.a', 'a.b', 'a.c')),
                          heap_dump(10, 10, 'h', heap_sample(1, 1, 0, 1, 0)),
                          module_symbols('/' + APP, b'\xab', (16, [('a.a', 'A.java', 5)]),
                                         (32, [('a.b', 'A.java', 50)])),
                          deobfuscation('com.app', klass(
                              'a', 'com.A',
                              method('a', 'inner', 1, 9, 100), method('a', 'other', 10, 20, 7),
                              method('a', 'outer', 5, 5, 200),
                              method('b', 'open', None, None, 3), method('b', 'low', 1, 10, 4),
                              method('c', 'x', 1, 2, 3), method('c', 'y', 3, 4, 5))))
        # a.a at line 5: inner then outer (the last is the frame's name);
        # a.b at line 50: only the unbounded one; a.c has no line: ambiguous
        self.assertEqual(self.names(path), '"name","deobfuscated_name"\n'
                         '"a.a","com.A.outer"\n"a.b","com.A.open"\n"a.c","com.A.x | com.A.y"\n')
        # (the order of the new sets between frames is Perfetto's hash order)
        self.assertEqual(e.query('select f.name as frame, s.name, line_number, inlined '
                                 'from stack_profile_frame f join stack_profile_symbol s '
                                 'using (symbol_set_id) order by f.id, s.id', path),
                         '"frame","name","line_number","inlined"\n'
                         '"a.a","com.A.inner",100,1\n"a.a","com.A.outer",200,0\n'
                         '"a.b","com.A.open",3,0\n')


if __name__ == '__main__':
    e.main()
