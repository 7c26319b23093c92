"""End-to-end: collapsed stacks, flame graph tools' input
(src/import/collapsed_stack): a profile of counts per callstack, without
times, in __intrinsic_aggregate_profile / __intrinsic_aggregate_sample on
stack_profile_* callsites. The expected tables are what Perfetto's
trace_processor_shell answers on the same text."""
import weft_e2e as e

# Comments and blank lines; frames with spaces and '+'; empty frames; lines
# skipped for a missing, negative, zero or unreadable count; a count with
# leading zeros; a line with no ';'; a last line without a newline whose
# count saturates.
TEXT = ('# comment\nmain;foo;bar 10\n\nmain;foo 5\nproc-1/2;main;foo+0x10 [k] 3\n'
        ';;main;;x 2\nnocount;a\nbad;a -5\nz;a 0\nmain;foo 00007\n;x 4\n'
        '  main;foo\t9  \nonly 3\nlast;line 99999999999999999999')


class CollapsedStackTest(e.TempDirTest):
    def load(self, text, sql):
        return e.query(sql, e.write_temp(self.dir, 'stacks.txt', text))

    def test_profile_and_samples(self):
        out = self.load(TEXT, "select * from __intrinsic_aggregate_profile; "
                        "select * from __intrinsic_aggregate_sample; "
                        "select name, str_value from metadata where name = 'trace_type'")
        self.assertEqual(out, (
            '"id","scope","name","sample_type_type","sample_type_unit"\n'
            '0,"collapsed_stack_file","collapsed_stack samples","samples","count"\n\n'
            '"id","aggregate_profile_id","callsite_id","value"\n'
            '0,0,2,10.000000\n1,0,1,5.000000\n2,0,5,3.000000\n3,0,6,2.000000\n'
            '4,0,1,7.000000\n5,0,7,4.000000\n6,0,8,3.000000\n'
            '7,0,10,9223372036854775808.000000\n\n'
            '"name","str_value"\n"trace_type","collapsed_stack"\n'))

    def test_callsites_frames_and_the_mapping(self):
        # Root first from depth 0; one frame (and symbol row) per name on
        # the file's one mapping.
        out = self.load(TEXT, "select id, depth, parent_id, frame_id from "
                        "stack_profile_callsite order by id; "
                        "select name, mapping, rel_pc, symbol_set_id from stack_profile_frame "
                        "order by id; select build_id, start, end, name from "
                        "stack_profile_mapping")
        self.assertEqual(out, (
            '"id","depth","parent_id","frame_id"\n'
            '0,0,"[NULL]",0\n1,1,0,1\n2,2,1,2\n3,0,"[NULL]",3\n4,1,3,0\n5,2,4,4\n'
            '6,1,0,5\n7,0,"[NULL]",5\n8,0,"[NULL]",6\n9,0,"[NULL]",7\n10,1,9,8\n\n'
            '"name","mapping","rel_pc","symbol_set_id"\n'
            '"main",0,0,0\n"foo",0,0,1\n"bar",0,0,2\n"proc-1/2",0,0,3\n'
            '"foo+0x10 [k]",0,0,4\n"x",0,0,5\n"only",0,0,6\n"last",0,0,7\n'
            '"line",0,0,8\n\n'
            '"build_id","start","end","name"\n"",0,-1,"[collapsed_stack]"\n'))

    def test_recognised_by_its_first_three_lines(self):
        # The first three lines that are not blank or comments must each
        # have a ';' and a count after their last space.
        ok = '\n# c\nmain;a 1\nmain;b 2\nmain;c 3\nnot a stack line\n'
        self.assertEqual(self.load(ok, "select count(*) from __intrinsic_aggregate_sample"),
                         '"count(*)"\n3\n')
        for text in ('main;a 1\nmain;b 2\nno stack here\n', 'main a 1\n', 'main;a x\n'):
            path = e.write_temp(self.dir, 'other.txt', text)
            status, _, err = e.run('-Q', 'select 1', path)
            self.assertNotEqual(status, 0, text)
            self.assertIn('Unknown trace type', err)


if __name__ == '__main__':
    e.main()
