"""End-to-end: experimental_annotated_callstack (sql/op_annotated_callstack.c)
on callstacks generated here. Every expected answer is worked out by hand
from the rules in that file."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
from test_profiles import (CALLSTACKS, FRAMES, FUNCTION_NAMES, MAPPING_PATHS, MAPPINGS, SEQ,
                           callstack, frame, interned_packet, istr, mapping)

# (mapping path components, frame name), root first
STACK = [
    (('system', 'lib64', 'libc.so'), '__start_thread'),            # native, before managed: none
    (('apex', 'lib64', 'libart.so'), 'art::Thread::Run'),          # libart before managed: none
    (('memfd:jit-cache (deleted)',), 'com.A.jitted'),              # jit
    (('apex', 'lib64', 'libart.so'), 'art_quick_invoke_stub'),     # erased: common-frame
    (('data', 'app', 'base.odex'), 'com.A.compiled'),              # aot
    (('apex', 'lib64', 'libart.so'), 'art_jni_trampoline'),        # common-frame, keeps next
    (('apex', 'lib64', 'libart.so'), 'art::Method_invoke'),        # kept: none
    (('apex', 'lib64', 'libart.so'), 'art::Something'),            # erased again: common-frame
    (('data', 'app', 'x.jar'), 'com.B.interpreted'),               # interp
    (('apex', 'lib64', 'libartd.so'), 'NterpHelper'),              # common-frame-interp
]


class AnnotatedCallstackTest(e.TempDirTest):
    def trace(self):
        fields, paths = [], {}
        for comps, _ in STACK:
            for c in comps:
                if c not in paths:
                    paths[c] = len(paths) + 1
                    fields.append((MAPPING_PATHS, istr(paths[c], c)))
        for i, (comps, name) in enumerate(STACK, 1):
            fields.append((MAPPINGS, mapping(i, paths=tuple(paths[c] for c in comps),
                                             start=i * 4096, end=i * 4096 + 4096)))
            fields.append((FUNCTION_NAMES, istr(i, name)))
            fields.append((FRAMES, frame(i, i, i, 16)))
        fields.append((CALLSTACKS, callstack(1, *range(1, len(STACK) + 1))))
        sample = pb_bytes(66, pb_int(1, 0) + pb_int(2, 5) + pb_int(3, 5) + pb_int(4, 1))
        packets = interned_packet(*fields) + pb_packet(pb_int(8, 10), pb_int(10, SEQ), sample)
        return e.write_temp(self.dir, 'stack.pb', packets)

    def test_managed_frames_and_erased_runtime_frames(self):
        path = self.trace()
        self.assertEqual(e.query('select a.id, a.depth, a.parent_id, f.name, a.annotation '
                                 'from experimental_annotated_callstack('
                                 '(select callsite_id from perf_sample)) a '
                                 'join stack_profile_frame f on f.id = a.frame_id', path),
                         '"id","depth","parent_id","name","annotation"\n'
                         '9,9,8,"NterpHelper","common-frame-interp"\n'
                         '8,8,7,"com.B.interpreted","interp"\n'
                         '7,7,6,"art::Something","common-frame"\n'
                         '6,6,5,"art::Method_invoke","[NULL]"\n'
                         '5,5,4,"art_jni_trampoline","common-frame"\n'
                         '4,4,3,"com.A.compiled","aot"\n'
                         '3,3,2,"art_quick_invoke_stub","common-frame"\n'
                         '2,2,1,"com.A.jitted","jit"\n'
                         '1,1,0,"art::Thread::Run","[NULL]"\n'
                         '0,0,"[NULL]","__start_thread","[NULL]"\n')
        self.assertEqual(e.query('select count(*) as n from experimental_annotated_callstack(NULL)',
                                 path), '"n"\n0\n')
        rc, _, err = e.run('-Q', 'select * from experimental_annotated_callstack(99)', path)
        self.assertNotEqual(rc, 0)
        self.assertIn('callsite with id 99 not found', err)


if __name__ == '__main__':
    e.main()
