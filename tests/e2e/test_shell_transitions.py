"""End-to-end: shell transitions merged per id, their args and participants
(proto_shell_transition.c, model/shell_transition.c). Traces are generated
with weft_e2e's pb_* writers; every expected answer is worked out by hand
from the rules in proto_shell_transition.h and model/shell_transition.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def transition(*fields):
    return pb_packet(pb_bytes(96, b''.join(fields)))


def rect(left, top, right, bottom):
    return pb_int(1, left) + pb_int(2, top) + pb_int(3, right) + pb_int(4, bottom)


TABLE_SQL = ('SELECT transition_id, ts, send_time_ns AS send, dispatch_time_ns AS dispatch, '
             'duration_ns AS dur, status, handler FROM window_manager_shell_transitions')


class ShellTransitionMergeTest(e.TempDirTest):
    def trace(self):
        data = (transition(pb_int(1, 1), pb_int(2, 5), pb_int(3, 50), pb_int(12, 2)) +
                transition(pb_int(1, 2), pb_int(7, 60)) +            # aborted
                transition(pb_int(1, 1), pb_int(9, 400)) +           # finish first
                transition(pb_int(1, 3), pb_int(4, 70), pb_int(8, 80)) +  # dispatched: no status
                transition(pb_int(1, 1), pb_int(4, 100), pb_int(3, 60)) +  # played, send moved
                transition(pb_int(1, 4), pb_int(4, 10), pb_int(9, 20), pb_int(5, 15)) +
                transition(pb_int(3, 9)))                            # no id: transition 0
        return e.write_temp(self.dir, 'merge.pb', data)

    def test_one_row_per_transition(self):
        self.assertEqual(e.query(TABLE_SQL, self.trace()),
                         '"transition_id","ts","send","dispatch","dur","status","handler"\n'
                         '1,60,60,100,300,"played",2\n'
                         '2,0,"[NULL]","[NULL]","[NULL]","aborted","[NULL]"\n'
                         '3,70,"[NULL]",70,"[NULL]","[NULL]","[NULL]"\n'
                         '4,10,"[NULL]",10,"[NULL]","merged","[NULL]"\n'
                         '0,9,9,"[NULL]","[NULL]","[NULL]","[NULL]"\n')

    def test_args_merge_in_place(self):
        self.assertEqual(e.query(
            'SELECT a.key, a.display_value FROM window_manager_shell_transitions t '
            'JOIN args a USING (arg_set_id) WHERE t.transition_id = 1 ORDER BY a.id',
            self.trace()),
            '"key","display_value"\n"id","1"\n"create_time_ns","5"\n"send_time_ns","60"\n'
            '"handler","2"\n"finish_time_ns","400"\n"dispatch_time_ns","100"\n')


class MalformedTransitionTest(e.TempDirTest):
    def test_id_read_before_a_truncated_field_counts(self):
        # field 2 claims 5 bytes, 2 follow: the message ends there
        data = pb_packet(pb_bytes(96, pb_int(1, 3) + pb_int(3, 40) + b'\x12\x05ab'))
        path = e.write_temp(self.dir, 'bad.pb', data)
        self.assertEqual(e.query(TABLE_SQL, path),
                         '"transition_id","ts","send","dispatch","dur","status","handler"\n'
                         '3,40,40,"[NULL]","[NULL]","[NULL]","[NULL]"\n')


class ParticipantsTest(e.TempDirTest):
    def test_changes_and_rects(self):
        first = pb_int(1, 1) + pb_int(2, 44) + pb_int(3, 55) + pb_bytes(9, rect(10, 20, 110, 120))
        second = (pb_int(3, 66) + pb_int(5, 1) + pb_int(8, 3) + pb_bytes(9, rect(10, 20, 110, 120)) +
                  pb_bytes(10, rect(5, 0, 2, 0)))
        data = (transition(pb_int(1, 7), pb_bytes(14, first)) +
                transition(pb_int(1, 7), pb_bytes(14, second), pb_bytes(14, pb_int(2, 9))))
        path = e.write_temp(self.dir, 'participants.pb', data)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.winscope.transitions;'
            'SELECT transition_id, layer_id, window_id, mode, start_display_id, end_rotation, '
            'start_abs_bounds_rect_id AS s, end_abs_bounds_rect_id AS e '
            'FROM android_window_manager_shell_transition_participants;'
            'SELECT id, x, y, w, h FROM __intrinsic_winscope_rect;'
            'SELECT a.key FROM window_manager_shell_transitions JOIN args a USING (arg_set_id) '
            "WHERE a.key GLOB 'changes*' ORDER BY a.id", path),
            '"transition_id","layer_id","window_id","mode","start_display_id","end_rotation",'
            '"s","e"\n'
            '7,44,55,1,"[NULL]","[NULL]",0,"[NULL]"\n'
            '7,"[NULL]",66,"[NULL]",1,3,0,1\n'
            '7,9,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n\n'
            '"id","x","y","w","h"\n0,10.000000,20.000000,100.000000,100.000000\n'
            '1,5.000000,0.000000,-3.000000,0.000000\n\n'
            '"key"\n"changes[0].mode"\n"changes[0].layer_id"\n"changes[0].window_id"\n'
            '"changes[0].start_absolute_bounds.left"\n"changes[0].start_absolute_bounds.top"\n'
            '"changes[0].start_absolute_bounds.right"\n"changes[0].start_absolute_bounds.bottom"\n'
            '"changes[0].start_display_id"\n"changes[0].end_rotation"\n'
            '"changes[0].end_absolute_bounds.left"\n"changes[0].end_absolute_bounds.top"\n'
            '"changes[0].end_absolute_bounds.right"\n"changes[0].end_absolute_bounds.bottom"\n'
            '"changes[1].layer_id"\n')


if __name__ == '__main__':
    e.main()
