"""End-to-end: Java heap graphs (proto_heap_graph.c, model/heap_graph*.c)
and the heap graph flamegraph (sql/op_flamegraph*.c), on traces generated
here. Every expected answer is worked out by hand from the rules in
model/heap_graph.h and sql/op_flamegraph.h."""
import weft_e2e as e

P = e.pb_int
B = e.pb_bytes


def packed(number, values):
    return B(number, b''.join(e.varint(v) for v in values))


def obj(oid, type_id, size, refs=(), fields=(), **extra):
    """A HeapGraphObject; extra: heap_type (9), nar (8), internal (10),
    base (6), id_delta (7) instead of id, bitmap fields by name."""
    out = P(7, extra['id_delta']) if 'id_delta' in extra else P(1, oid)
    out += P(2, type_id) + P(3, size)
    if fields:
        out += packed(4, fields)
    if refs:
        out += packed(5, refs)
    if 'base' in extra:
        out += P(6, extra['base'])
    if 'nar' in extra:
        out += P(8, extra['nar'])
    if 'heap_type' in extra:
        out += P(9, extra['heap_type'])
    if 'internal' in extra:
        out += packed(10, extra['internal'])
    for name, number in (('bitmap_id', 11), ('bitmap_source_id', 12),
                         ('bitmap_width', 13), ('bitmap_height', 14)):
        if name in extra:
            out += P(number, extra[name])
    return B(2, out)


def typ(tid, name, location=None, size=None, fields=(), superclass=None, kind=None):
    out = P(1, tid) + B(3, name)
    if location is not None:
        out += P(2, location)
    if size is not None:
        out += P(4, size)
    if superclass is not None:
        out += P(5, superclass)
    if fields:
        out += packed(6, fields)
    if kind is not None:
        out += P(7, kind)
    return B(9, out)


def field(iid, name):
    return B(4, P(1, iid) + B(2, name))


def location(iid, name):
    return B(8, P(1, iid) + B(2, name))


def root(ids, root_type):
    return B(7, packed(1, ids) + P(2, root_type))


JAVA_FRAME, JNI_GLOBAL, STICKY_CLASS = 3, 1, 5


def graph(*parts, pid=2, index=0, continued=False, ts=10, seq=1):
    body = P(1, pid) + b''.join(parts) + P(5, 1 if continued else 0) + P(6, index)
    return e.pb_packet(P(8, ts), P(10, seq), B(56, body))


def process(pid=2, name='app'):
    return e.pb_packet(B(2, B(1, P(1, pid) + P(2, 1) + B(3, name))))


def mapping(package, classes):
    """A DeobfuscationMapping: classes = [(obfuscated, name, [(member,
    name)])]."""
    out = B(1, package) if package else b''
    for obf, name, members in classes:
        cls = B(1, obf) + B(2, name)
        for m_obf, m_name in members:
            cls += B(3, B(1, m_obf) + B(2, m_name))
        out += B(3, cls)
    return e.pb_packet(B(64, out))


class HeapGraphTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'heap.pb', process() + b''.join(packets))

    def q(self, sql, path):
        return e.query(sql, path)

    def test_a_process_first_seen_in_a_heap_graph_gets_its_main_thread(self):
        # pid 7 is in no process tree: its graph makes the process and its
        # main thread, as Perfetto's GetOrCreateProcess does; pids 2 and 1
        # (its parent) and their main threads come from the process tree
        path = self.trace(graph(obj(1, 1, 8), typ(1, 'A'), pid=7),
                          graph(obj(1, 1, 8), typ(1, 'A'), pid=2, seq=2))
        self.assertEqual(self.q('select t.tid, p.pid, t.is_main_thread from thread t '
                                'join process p using (upid) where t.tid > 0 order by t.utid',
                                path),
                         '"tid","pid","is_main_thread"\n1,1,1\n2,2,1\n7,7,1\n')

    def test_objects_references_and_reachability(self):
        # (upid 2: the process tree's parent pid 1 is upid 1.)
        # Object 1 (a root) refers to 2 twice and to nothing once; 3 is
        # garbage referring to 4, which no packet defines.
        path = self.trace(graph(
            obj(1, 1, 64, refs=(2, 0, 2), fields=(1, 2, 3)),
            obj(2, 2, 32), obj(3, 2, 16, refs=(4,), fields=(4,)),
            typ(1, 'Root'), typ(2, 'Foo'),
            field(1, 'Root.a'), field(2, 'Root.b'), field(3, 'int Root.c'),
            field(4, 'Foo Foo.next'), root((1,), JAVA_FRAME)))
        self.assertEqual(self.q(
            'select id, upid, graph_sample_ts, self_size, reference_set_id, reachable, '
            'type_id, root_type, root_distance from heap_graph_object', path),
            '"id","upid","graph_sample_ts","self_size","reference_set_id","reachable",'
            '"type_id","root_type","root_distance"\n'
            '0,2,10,64,0,1,0,"ROOT_JAVA_FRAME",-1\n'
            '1,2,10,32,"[NULL]",1,1,"[NULL]",-1\n'
            '2,2,10,16,3,0,1,"[NULL]",-1\n'
            '3,2,10,-1,"[NULL]",0,0,"[NULL]",-1\n')
        self.assertEqual(self.q(
            'select id, reference_set_id, owner_id, owned_id, field_name, field_type_name '
            'from heap_graph_reference', path),
            '"id","reference_set_id","owner_id","owned_id","field_name","field_type_name"\n'
            '0,0,0,1,"Root.a","[NULL]"\n'
            '1,0,0,"[NULL]","Root.b","[NULL]"\n'
            '2,0,0,1,"Root.c","int"\n'
            '3,3,2,3,"Foo.next","Foo"\n')
        self.assertEqual(self.q('select id, name, kind from heap_graph_class', path),
                         '"id","name","kind"\n0,"Root","KIND_UNKNOWN"\n'
                         '1,"Foo","KIND_UNKNOWN"\n')
        self.assertEqual(self.q('select ts, upid, heap_size, truncated from heap_graph',
                                path),
                         '"ts","upid","heap_size","truncated"\n10,2,"[NULL]",0\n')


    def test_a_root_without_object_ids_marks_nothing(self):
        # The only root of the dump names no object: nothing is a root.
        path = self.trace(graph(obj(1, 1, 64), typ(1, 'Foo'), B(7, P(2, JAVA_FRAME))))
        self.assertEqual(self.q(
            'select count(*), count(root_type), sum(reachable) from heap_graph_object', path),
            '"count(*)","count(root_type)","sum(reachable)"\n1,0,0\n')

    def test_type_fields_sizes_roots_and_weak_referents(self):
        # Object 1 (Child, self size 0: its type's 24) names its three
        # references from Child's fields, then its superclass Base's.
        # Objects 2 and 3 are on the zygote heap (3 by the heap type carried
        # from 2, its id by delta): ROOT_VM_INTERNAL. Object 1 is a root three
        # times: sticky class outranks JNI global, which outranks a frame.
        # Object 4, a weak reference, does not keep its referent 5 alive.
        path = self.trace(graph(
            obj(1, 2, 0, refs=(2, 3, 4)),
            obj(2, 3, 8, heap_type=2), obj(0, 3, 8, id_delta=1),
            obj(4, 4, 40, refs=(5,), heap_type=1), obj(5, 3, 8),
            obj(6, 3, 8, refs=(10, 20), base=100),
            typ(1, 'Base', fields=(3,)), typ(2, 'Child', size=24, superclass=1, fields=(1, 2)),
            typ(3, 'Leaf', kind=2), typ(4, 'java.lang.ref.WeakReference', kind=9, fields=(4,)),
            field(1, 'Child.x'), field(2, 'Child.y'), field(3, 'Base.z'),
            field(4, 'java.lang.Object java.lang.ref.Reference.referent'),
            root((1,), JAVA_FRAME), root((1, 4), JNI_GLOBAL), root((1,), STICKY_CLASS),
            root((4,), JAVA_FRAME)))
        self.assertEqual(self.q(
            'select id, self_size, reference_set_id, reachable, heap_type, type_id, root_type '
            'from heap_graph_object', path),
            '"id","self_size","reference_set_id","reachable","heap_type","type_id","root_type"\n'
            '0,24,0,1,"[NULL]",0,"ROOT_STICKY_CLASS"\n'
            '1,8,"[NULL]",1,"HEAP_TYPE_ZYGOTE",1,"ROOT_VM_INTERNAL"\n'
            '2,8,"[NULL]",1,"HEAP_TYPE_ZYGOTE",1,"ROOT_VM_INTERNAL"\n'
            '3,40,3,1,"HEAP_TYPE_APP",2,"ROOT_JNI_GLOBAL"\n'
            '4,8,"[NULL]",0,"HEAP_TYPE_APP",1,"[NULL]"\n'
            '5,8,4,0,"HEAP_TYPE_APP",1,"[NULL]"\n'
            '6,-1,"[NULL]",0,"[NULL]",0,"[NULL]"\n'
            '7,-1,"[NULL]",0,"[NULL]",0,"[NULL]"\n')
        # Object 6's referents are 100 + 10 and 100 + 20 (ids 110, 120: rows
        # 6 and 7); Leaf has no references, so they stay unnamed.
        self.assertEqual(self.q(
            'select id, reference_set_id, owner_id, owned_id, field_name '
            'from heap_graph_reference', path),
            '"id","reference_set_id","owner_id","owned_id","field_name"\n'
            '0,0,0,1,"Child.x"\n1,0,0,2,"Child.y"\n2,0,0,3,"Base.z"\n'
            '3,3,3,4,"java.lang.ref.Reference.referent"\n'
            '4,4,5,6,"[NULL]"\n5,4,5,7,"[NULL]"\n')
        self.assertEqual(self.q('select id, name, kind from heap_graph_class', path),
                         '"id","name","kind"\n0,"Child","KIND_UNKNOWN"\n'
                         '1,"Leaf","KIND_NOREFERENCES"\n'
                         '2,"java.lang.ref.WeakReference","KIND_WEAK_REFERENCE"\n'
                         '3,"Base","KIND_UNKNOWN"\n')

    def test_native_sizes_and_superclasses(self):
        # Cleaner 10 -> referent 1, thunk 11 -> this$0 12 (size 1001: the low
        # bit is dropped); cleaner 20 was cleaned (next is itself).
        # java.lang.Class<Sub> (l1) has superClass java.lang.Class<Super>
        # (l2): Sub at l1 gets Super at l2, not Super at l1.
        path = self.trace(graph(
            obj(1, 1, 16),
            obj(10, 2, 8, refs=(1, 11, 0), fields=(1, 2, 3)),
            obj(11, 3, 8, refs=(12,), fields=(4,)),
            obj(12, 4, 8, nar=1001),
            obj(20, 2, 8, refs=(1, 11, 20), fields=(1, 2, 3)),
            obj(30, 5, 8, refs=(31,), fields=(5,)), obj(31, 6, 8), obj(32, 7, 4), obj(33, 8, 4),
            typ(1, 'Bitmap', location=1), typ(2, 'sun.misc.Cleaner'),
            typ(3, 'libcore.util.NativeAllocationRegistry$CleanerThunk'),
            typ(4, 'libcore.util.NativeAllocationRegistry'),
            typ(5, 'java.lang.Class<Sub>', location=1), typ(6, 'java.lang.Class<Super>', location=2),
            typ(7, 'Sub', location=1), typ(8, 'Super', location=2), typ(9, 'Super', location=1),
            field(1, 'java.lang.ref.Reference.referent'), field(2, 'sun.misc.Cleaner.thunk'),
            field(3, 'sun.misc.Cleaner.next'),
            field(4, 'libcore.util.NativeAllocationRegistry$CleanerThunk.this$0'),
            field(5, 'java.lang.Class.superClass'),
            location(1, 'l1'), location(2, 'l2'),
            root((1, 10, 20, 30), JAVA_FRAME)))
        self.assertEqual(self.q('select id, native_size from heap_graph_object '
                                'where native_size != 0', path),
                         '"id","native_size"\n0,1000\n')
        self.assertEqual(self.q('select id, name, location, superclass_id from heap_graph_class '
                                'where id >= 4', path),
                         '"id","name","location","superclass_id"\n'
                         '4,"java.lang.Class<Sub>","l1","[NULL]"\n'
                         '5,"java.lang.Class<Super>","l2","[NULL]"\n'
                         '6,"Sub","l1",7\n7,"Super","l2","[NULL]"\n8,"Super","l1","[NULL]"\n')

    def test_deobfuscation_by_package(self):
        # a's location names package com.pkg; a[][] and java.lang.Class<a[]>
        # have none (any mapping applies; the last wins); b is in-memory dex
        # of com.mem; c's /data/app path has no '-' (a parse error, no
        # package).
        path = self.trace(graph(
            obj(1, 1, 8, refs=(2, 3), fields=(1, 2)), obj(2, 2, 8), obj(3, 3, 8), obj(4, 4, 8),
            obj(5, 5, 8), obj(6, 6, 8),
            typ(1, 'a', location=1), typ(2, 'a[][]', location=2), typ(3, 'java.lang.Class<a[]>'),
            typ(4, 'b', location=3), typ(5, 'c', location=4), typ(6, 'c'),
            field(1, 'a.x'), field(2, 'a.y'),
            location(1, '/data/app/~~r4nd==/com.pkg-XyZ==/base.apk'),
            location(2, '/system/framework/x.jar'),
            location(3, '[anon:dalvik-classes.dex extracted in memory from '
                        '/data/app/com.mem-1/base.apk]'),
            location(4, '/data/app/nodash/base.apk'),
            root((1,), JAVA_FRAME)),
            mapping('com.other', [('a', 'Other', []), ('c', 'OtherC', [])]),
            mapping('com.pkg', [('a', 'Real', [('x', 'realX'), ('y', 'Qualified.y')])]),
            mapping('com.mem', [('b', 'Mem', [])]))
        self.assertEqual(self.q('select id, name, deobfuscated_name from heap_graph_class', path),
                         '"id","name","deobfuscated_name"\n0,"a","Real"\n'
                         '1,"a[][]","Real[][]"\n'
                         '2,"java.lang.Class<a[]>","java.lang.Class<Real[]>"\n'
                         '3,"b","Mem"\n4,"c","OtherC"\n5,"c","OtherC"\n')
        self.assertEqual(self.q('select field_name, deobfuscated_field_name '
                                'from heap_graph_reference', path),
                         '"field_name","deobfuscated_field_name"\n'
                         '"a.x","Real.realX"\n"a.y","Qualified.y"\n')
        self.assertEqual(self.q("select value from stats "
                                "where name = 'deobfuscate_location_parse_error'", path),
                         '"value"\n1\n')

    def test_bitmap_fields_and_heap_size(self):
        path = self.trace(graph(
            obj(1, 1, 8, bitmap_id=7, bitmap_width=3, bitmap_height=4), obj(2, 1, 8),
            typ(1, 'android.graphics.Bitmap'), P(10, 4096)))
        self.assertEqual(self.q(
            'select o.id, p.field_set_id, p.field_name, p.field_type, p.int_value, p.long_value '
            'from heap_graph_object o join heap_graph_object_data d on o.object_data_id = d.id '
            'join heap_graph_primitive p using (field_set_id)', path),
            '"id","field_set_id","field_name","field_type","int_value","long_value"\n'
            '0,0,"android.graphics.Bitmap.mId","long","[NULL]",7\n'
            '0,0,"android.graphics.Bitmap.mWidth","int",3,"[NULL]"\n'
            '0,0,"android.graphics.Bitmap.mHeight","int",4,"[NULL]"\n')
        self.assertEqual(self.q('select heap_size from heap_graph', path),
                         '"heap_size"\n4096\n')

    def test_packets_dumps_and_losses(self):
        # Packets 0 and 2 of one dump: 1 is missing (truncated, counted on
        # the process). A second sequence never ends its dump: finalized at
        # the end, counted as non-finalized.
        path = self.trace(
            graph(obj(1, 1, 8), typ(1, 'A'), continued=True, index=0),
            graph(obj(2, 1, 8), root((1, 2), JAVA_FRAME), index=2),
            graph(obj(1, 1, 4), typ(1, 'B'), root((1,), JAVA_FRAME), continued=True, seq=2,
                  ts=20))
        self.assertEqual(self.q('select ts, upid, truncated from heap_graph', path),
                         '"ts","upid","truncated"\n10,2,1\n20,2,0\n')
        self.assertEqual(self.q("select name, idx, value from stats where name in "
                                "('heap_graph_missing_packet', "
                                "'heap_graph_non_finalized_graph') and value > 0 order by name", path),
                         '"name","idx","value"\n"heap_graph_missing_packet",2,1\n'
                         '"heap_graph_non_finalized_graph","[NULL]",1\n')


    def flame(self, path, focus='NULL', ts=10, upid=2):
        return self.q('select id, depth, name, count, cumulative_count, size, cumulative_size, '
                      "parent_id from experimental_flamegraph('graph', %d, NULL, %d, NULL, %s)"
                      % (ts, upid, focus), path)

    def test_flamegraph_merges_shortest_paths_by_class(self):
        # Roots B (obj 1) and A (obj 2): the walk starts at A (class name
        # order), so X 3 shared by both hangs under A. Merged under A: X 3
        # and X 6 (count 2, size 9). Y 4 is a cleaner's referent: its native
        # 1000 is a "[native] Y" child. Siblings follow their least object
        # id (B is object row 0, A row 3), natives last.
        path = self.trace(graph(
            obj(1, 2, 10, refs=(5, 3), fields=(1, 1)), obj(2, 1, 20, refs=(4, 6, 3), fields=(1, 1, 1)),
            obj(3, 3, 1, refs=(7,), fields=(1,)), obj(4, 4, 2), obj(5, 3, 4, refs=(8,), fields=(1,)),
            obj(6, 3, 8), obj(7, 4, 16), obj(8, 5, 32),
            obj(10, 6, 8, refs=(4, 11, 0), fields=(2, 3, 4)), obj(11, 7, 8, refs=(12,), fields=(5,)),
            obj(12, 8, 8, nar=1001),
            typ(1, 'A'), typ(2, 'B'), typ(3, 'X'), typ(4, 'Y'), typ(5, 'Z'),
            typ(6, 'sun.misc.Cleaner'), typ(7, 'libcore.util.NativeAllocationRegistry$CleanerThunk'),
            typ(8, 'libcore.util.NativeAllocationRegistry'),
            field(1, 'f'), field(2, 'java.lang.ref.Reference.referent'),
            field(3, 'sun.misc.Cleaner.thunk'), field(4, 'sun.misc.Cleaner.next'),
            field(5, 'libcore.util.NativeAllocationRegistry$CleanerThunk.this$0'),
            root((1,), JAVA_FRAME), root((2,), JNI_GLOBAL)))
        # (Checked by structure: the order of nodes at several depths under
        # several roots is not pinned down here.)
        tree = ("with f as (select * from experimental_flamegraph('graph', 10, NULL, 2, NULL, "
                "%s)) select c.depth, c.name, c.count, c.cumulative_count, c.size, "
                "c.cumulative_size, p.name as parent from f c left join f p "
                "on c.parent_id = p.id order by c.depth, c.cumulative_size")
        head = ('"depth","name","count","cumulative_count","size","cumulative_size",'
                '"parent"\n')
        self.assertEqual(self.q(tree % 'NULL', path), head +
                         '0,"B [ROOT_JAVA_FRAME]",1,3,10,46,"[NULL]"\n'
                         '0,"A [ROOT_JNI_GLOBAL]",1,6,20,1047,"[NULL]"\n'
                         '1,"X",2,3,9,25,"A [ROOT_JNI_GLOBAL]"\n'
                         '1,"X",1,2,4,36,"B [ROOT_JAVA_FRAME]"\n'
                         '1,"Y",1,2,2,1002,"A [ROOT_JNI_GLOBAL]"\n'
                         '2,"Y",1,1,16,16,"X"\n'
                         '2,"Z",1,1,32,32,"X"\n'
                         '2,"[native] Y",1,1,1000,1000,"Y"\n')
        # Focus "y": the matches, their ancestors and descendants.
        self.assertEqual(self.q(tree % "'y'", path), head +
                         '0,"A [ROOT_JNI_GLOBAL]",1,6,20,1047,"[NULL]"\n'
                         '1,"X",2,3,9,25,"A [ROOT_JNI_GLOBAL]"\n'
                         '1,"Y",1,2,2,1002,"A [ROOT_JNI_GLOBAL]"\n'
                         '2,"Y",1,1,16,16,"X"\n'
                         '2,"[native] Y",1,1,1000,1000,"Y"\n')

    def test_flamegraph_lists_depth_first_by_least_object(self):
        # Root Q is object row 0 (defined first), P row 2: Q's subtree first.
        path = self.trace(graph(
            obj(3, 2, 4, refs=(4,), fields=(1,)), obj(1, 1, 1, refs=(2,), fields=(1,)),
            obj(2, 3, 2), obj(4, 4, 8), typ(1, 'P'), typ(2, 'Q'), typ(3, 'C1'), typ(4, 'C2'),
            field(1, 'f'), root((1, 3), JAVA_FRAME)))
        self.assertEqual(self.flame(path),
                         '"id","depth","name","count","cumulative_count","size",'
                         '"cumulative_size","parent_id"\n'
                         '0,0,"Q [ROOT_JAVA_FRAME]",1,2,4,12,"[NULL]"\n'
                         '1,1,"C2",1,1,8,8,0\n'
                         '2,0,"P [ROOT_JAVA_FRAME]",1,2,1,3,"[NULL]"\n'
                         '3,1,"C1",1,1,2,2,2\n')

    def test_flamegraph_without_roots(self):
        # A dump with a missing packet and no roots: the incomplete marker;
        # a complete dump without roots: an error.
        path = self.trace(graph(obj(1, 1, 8), typ(1, 'A'), index=1),
                          graph(obj(1, 1, 8), typ(1, 'A'), ts=20, seq=2))
        self.assertEqual(self.q("select depth, name, count, size from experimental_flamegraph("
                                "'graph', 10, NULL, 2, NULL, NULL)", path),
                         '"depth","name","count","size"\n'
                         '0,"ERROR: INCOMPLETE GRAPH (try increasing buffer size)",1,1\n')
        rc, out, err = e.run('-Q', "select * from experimental_flamegraph('graph', 20, NULL, 2, "
                             'NULL, NULL)', path)
        self.assertNotEqual(rc, 0)
        self.assertIn('Failed to build flamegraph', err)


    def test_malformed_objects_are_counted(self):
        # Object 1: one field id for two referents (skipped); object 3: a
        # truncated packed referent list (ends the packet's objects, so 4 is
        # never read). Each counts heap_graph_malformed_packet on the upid.
        bad = B(2, P(1, 3) + P(2, 1) + B(5, b'\xff'))
        path = self.trace(graph(obj(1, 1, 8, refs=(2, 3), fields=(1,)), obj(2, 1, 8), bad,
                                obj(4, 1, 8), typ(1, 'A'), root((2,), JAVA_FRAME)))
        self.assertEqual(self.q('select id, self_size, root_type from heap_graph_object', path),
                         '"id","self_size","root_type"\n0,8,"ROOT_JAVA_FRAME"\n')
        self.assertEqual(self.q("select idx, value from stats "
                                "where name = 'heap_graph_malformed_packet'", path),
                         '"idx","value"\n2,2\n')


    def class_tree_trace(self):
        # Child 3 is reachable from RootB (row 0) and RootA (row 1): the walk
        # starts at RootA (class name order). A chain of one class (Child ->
        # Child 4) is one node; Child 4 has a native size of 1000.
        return self.trace(graph(
            obj(1, 1, 10, refs=(3,), fields=(1,)), obj(2, 2, 10, refs=(3,), fields=(1,)),
            obj(3, 3, 100, refs=(4, 5), fields=(1, 1)), obj(4, 3, 7), obj(5, 1, 1),
            obj(10, 4, 8, refs=(4, 11, 0), fields=(2, 3, 4)), obj(11, 5, 8, refs=(12,), fields=(5,)),
            obj(12, 6, 8, nar=1000),
            typ(1, 'RootB'), typ(2, 'RootA'), typ(3, 'Child'), typ(4, 'sun.misc.Cleaner'),
            typ(5, 'libcore.util.NativeAllocationRegistry$CleanerThunk'),
            typ(6, 'libcore.util.NativeAllocationRegistry'),
            field(1, 'f'), field(2, 'java.lang.ref.Reference.referent'),
            field(3, 'sun.misc.Cleaner.thunk'), field(4, 'sun.misc.Cleaner.next'),
            field(5, 'libcore.util.NativeAllocationRegistry$CleanerThunk.this$0'),
            root((1, 2), JAVA_FRAME)))

    def test_class_tree_module(self):
        path = self.class_tree_trace()
        self.assertEqual(self.q(
            'include perfetto module android.memory.heap_graph.class_tree; '
            'select c.name, c.root_type, c.heap_type, c.self_count, c.self_size, '
            'p.name as parent from _heap_graph_class_tree c '
            'left join _heap_graph_class_tree p on c.parent_id = p.id '
            'order by c.name, parent', path),
            '"name","root_type","heap_type","self_count","self_size","parent"\n'
            '"Child","[NULL]","[NULL]",2,107,"RootA"\n'
            '"RootA","ROOT_JAVA_FRAME","[NULL]",1,10,"[NULL]"\n'
            '"RootB","ROOT_JAVA_FRAME","[NULL]",1,10,"[NULL]"\n'
            '"RootB","[NULL]","[NULL]",1,1,"Child"\n'
            '"[native] Child","[NULL]","HEAP_TYPE_NATIVE",1,1000,"Child"\n')


    def test_class_summary_tree_module(self):
        path = self.class_tree_trace()
        self.assertEqual(self.q(
            'include perfetto module android.memory.heap_graph.class_summary_tree; '
            'select c.name, c.self_count, c.self_size, c.cumulative_count, c.cumulative_size, '
            'p.name as parent from android_heap_graph_class_summary_tree c '
            'left join android_heap_graph_class_summary_tree p on c.parent_id = p.id '
            'order by c.name, parent', path),
            '"name","self_count","self_size","cumulative_count","cumulative_size","parent"\n'
            '"Child",2,107,4,1108,"RootA"\n'
            '"RootA",1,10,5,1118,"[NULL]"\n'
            '"RootB",1,10,1,10,"[NULL]"\n'
            '"RootB",1,1,1,1,"Child"\n'
            '"[native] Child",1,1000,1,1000,"Child"\n')


if __name__ == '__main__':
    e.main()
