"""End-to-end: the Android users and game intervention lists
(proto_android_lists.c, model/android_fw.c). Traces are generated with
weft_e2e's pb_* writers; every expected answer is worked out by hand from
the rules in proto_android_lists.h."""
import struct

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet, varint

USER_LIST, GAME_LIST = 123, 83


def pb_float(number, value):
    """A fixed32 field holding a float."""
    return varint(number << 3 | 5) + struct.pack('<f', value)


def user(type_=None, uid=None):
    out = pb_bytes(1, type_) if type_ is not None else b''
    return pb_bytes(1, out + (pb_int(2, uid) if uid is not None else b''))


def mode(number, angle=None, downscale=None, fps=None):
    out = pb_int(1, number)
    out += pb_int(2, angle) if angle is not None else b''
    out += pb_float(3, downscale) if downscale is not None else b''
    out += pb_float(4, fps) if fps is not None else b''
    return pb_bytes(4, out)


class UserListTest(e.TempDirTest):
    def test_one_row_per_user_id_the_last_type_stays(self):
        data = (pb_packet(pb_int(8, 10), pb_bytes(USER_LIST,
                          user('FULL', 10) + user('GUEST', 10) + user('FULL', 11) +
                          user(uid=12) + user('NO_UID') + user('A', 13))) +
                # a user without uid is user 0; a later list repeats users:
                # the new id is added, the others take their new type
                pb_packet(pb_int(8, 20), pb_bytes(USER_LIST,
                          user('GUEST', 11) + user('SYSTEM', 0) + user(uid=13) +
                          pb_int(2, 1))))
        path = e.write_temp(self.dir, 'users.pb', data)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.user_list;'
            'SELECT android_user_id, type FROM android_user_list;'
            "SELECT value FROM stats WHERE name = 'user_list_errors'", path),
            '"android_user_id","type"\n10,"GUEST"\n11,"GUEST"\n12,"[NULL]"\n0,"SYSTEM"\n'
            '13,"[NULL]"\n\n'
            '"value"\n0\n')


class GameInterventionListTest(e.TempDirTest):
    def test_modes_by_number_and_absent_fields(self):
        game1 = pb_bytes(1, pb_bytes(1, 'game1') + pb_int(2, 1001) + pb_int(3, 2) +
                         mode(1, 1, 0.5, 30.0) + mode(2, 1, 0.25, 60.0) +
                         mode(2, fps=90.0) +  # the later info of a mode wins
                         mode(7, 1, 1.0, 1.0))  # no such mode
        bare = pb_bytes(1, pb_int(2, 5))
        data = pb_packet(pb_int(8, 10), pb_bytes(GAME_LIST, game1 + bare + pb_int(2, 1)))
        data += pb_packet(pb_int(8, 20), pb_bytes(GAME_LIST, pb_bytes(1, pb_bytes(1, 'game1'))))
        path = e.write_temp(self.dir, 'games.pb', data)
        self.assertEqual(e.query(
            'SELECT package_name, uid, current_mode, standard_mode_supported AS s, '
            'standard_mode_downscale AS sd, standard_mode_use_angle AS sa, '
            'standard_mode_fps AS sf, perf_mode_supported AS p, perf_mode_downscale AS pd, '
            'perf_mode_use_angle AS pa, perf_mode_fps AS pf, battery_mode_supported AS b, '
            'battery_mode_fps AS bf FROM android_game_intervention_list', path),
            '"package_name","uid","current_mode","s","sd","sa","sf","p","pd","pa","pf",'
            '"b","bf"\n'
            '"game1",1001,2,1,0.500000,1,30.000000,1,0.000000,0,90.000000,0,"[NULL]"\n'
            '"[NULL]",5,0,0,"[NULL]","[NULL]","[NULL]",0,"[NULL]","[NULL]","[NULL]",0,'
            '"[NULL]"\n'
            '"game1",0,0,0,"[NULL]","[NULL]","[NULL]",0,"[NULL]","[NULL]","[NULL]",0,'
            '"[NULL]"\n')


if __name__ == '__main__':
    e.main()
