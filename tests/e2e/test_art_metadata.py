"""End-to-end: ArtProcessMetadata packets (proto_art_metadata.c,
model/heap_graph_oome.c) on traces generated here. Every expected answer is
worked out by hand from the rules in proto_heap_graph.h and heap_graph.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
from test_deobfuscation import deobfuscation, klass, method


def java_frame(name=None, file=None, line=None):
    return pb_bytes(1, (pb_bytes(1, name) if name is not None else b'') +
                    (pb_bytes(2, file) if file is not None else b'') +
                    (pb_int(3, line) if line is not None else b''))


def art_metadata(ts, pid, uid=None, name=None, package=None, oome=None, stack=None, msg=None):
    """oome: (allocation size, total free, free until OOM)."""
    body = pb_int(1, pid)
    body += pb_int(2, uid) if uid is not None else b''
    body += pb_bytes(3, name) if name is not None else b''
    body += pb_bytes(4, package) if package is not None else b''
    if oome:
        body += pb_int(5, oome[0]) + pb_int(6, oome[1]) + pb_int(7, oome[2])
    body += pb_bytes(8, b''.join(stack)) if stack is not None else b''
    body += pb_bytes(9, msg) if msg is not None else b''
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(131, body))


class ArtMetadataTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'art.pb', b''.join(packets))

    def test_an_oome_makes_a_heap_graph_its_details_and_the_stack(self):
        stack = [java_frame('void a.B.inner(int, long)', 'B.java', 7),
                 java_frame(file='no_method.java'),
                 java_frame('a.B.inner', 'B.java', 9), java_frame('a.Main.main')]
        path = self.trace(
            art_metadata(100, 42, uid=1010155, name='app', package='com.app',
                         oome=(4096, 100, 50), stack=stack, msg='OOM!'),
            art_metadata(200, 42, uid=1010155, package='com.app'),
            art_metadata(300, 43, oome=(1, 2, 3)))
        self.assertEqual(e.query('select g.id, g.ts, p.pid, g.dump_reason, g.truncated '
                                 'from heap_graph g join process p using (upid)', path),
                         '"id","ts","pid","dump_reason","truncated"\n'
                         '0,100,42,"OOME",0\n1,200,42,"[NULL]",0\n2,300,43,"OOME",0\n')
        self.assertEqual(e.query('include perfetto module android.memory.heap_graph.oome; '
                                 'select * from android_heap_graph_java_oome_details', path),
                         '"id","heap_graph_id","allocation_size_bytes","total_bytes_free",'
                         '"free_bytes_until_oom","error_msg"\n'
                         '0,0,4096,100,50,"OOM!"\n1,2,1,2,3,"[NULL]"\n')
        # the process is named, with its uid; a packages_list row per packet
        # with a package and uid (Perfetto adds one each time)
        self.assertEqual(e.query('select pid, name, uid, android_appid, android_user_id '
                                 'from process where pid = 42', path),
                         '"pid","name","uid","android_appid","android_user_id"\n'
                         '42,"app",1010155,10155,10\n')
        self.assertEqual(e.query('select package_name, uid, version_code from package_list',
                                 path),
                         '"package_name","uid","version_code"\n"com.app",1010155,0\n'
                         '"com.app",1010155,0\n')
        # outermost frame first; the frame without a method is dropped; the
        # name loses its return type and parameters
        self.assertEqual(e.query('select c.id, c.depth, f.name, s.source_file, s.line_number, '
                                 'm.name as map from stack_profile_callsite c '
                                 'join stack_profile_frame f on f.id = c.frame_id '
                                 'join stack_profile_symbol s using (symbol_set_id) '
                                 'join stack_profile_mapping m on m.id = f.mapping '
                                 'order by c.id', path),
                         '"id","depth","name","source_file","line_number","map"\n'
                         '0,0,"a.Main.main","[NULL]","[NULL]","art_process_metadata"\n'
                         '1,1,"a.B.inner","B.java",9,"art_process_metadata"\n'
                         '2,2,"a.B.inner","B.java",7,"art_process_metadata"\n')
        # the failing thread (the process's main thread) at the innermost frame
        self.assertEqual(e.query('select heap_graph_id, tid, callsite_id '
                                 'from heap_graph_thread_callsite join thread using (utid)', path),
                         '"heap_graph_id","tid","callsite_id"\n0,42,2\n')
        self.assertEqual(e.query('select f.name, s.line_number from heap_graph_thread_callsite g '
                                 'join stack_profile_callsite c on c.id = g.callsite_id '
                                 'join stack_profile_frame f on f.id = c.frame_id '
                                 'join stack_profile_symbol s using (symbol_set_id)', path),
                         '"name","line_number"\n"a.B.inner",7\n')

    def test_oome_frames_are_deobfuscated_by_their_process_package(self):
        packages = pb_packet(pb_bytes(47, pb_bytes(1, pb_bytes(1, 'com.app') + pb_int(2, 10155))))
        path = self.trace(
            packages,
            art_metadata(100, 42, uid=10155, oome=(1, 1, 1),
                         stack=[java_frame('x.a', 'X.java', 3)]),
            deobfuscation('com.app', klass('x', 'com.X', method('a', 'run'))))
        # the frame's line (3) is in the unbounded range: a new symbol set
        self.assertEqual(e.query('select f.name, f.deobfuscated_name, s.name as symbol, '
                                 's.inlined from stack_profile_frame f '
                                 'join stack_profile_symbol s using (symbol_set_id)', path),
                         '"name","deobfuscated_name","symbol","inlined"\n'
                         '"x.a","com.X.run","com.X.run",0\n')


if __name__ == '__main__':
    e.main()
