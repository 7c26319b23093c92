"""End-to-end: view capture snapshots and views with their interned strings
(proto_viewcapture.c, model/viewcapture.c). Traces are generated with
weft_e2e's pb_* writers; every expected answer is worked out by hand from
the rules in proto_viewcapture.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def interned(field, iid, text):
    return pb_bytes(field, pb_int(1, iid) + pb_bytes(2, text))


def trace(directory):
    strings = (interned(38, 1, 'com.example') + interned(40, 1, 'NO_ID') +
               interned(41, 1, 'DecorView') + interned(46, 1, 'Hello'))
    root = pb_int(2, -1) + pb_int(3, 77) + pb_int(4, 1) + pb_int(5, 1) + pb_int(8, 1080)
    child = pb_int(1, 1) + pb_int(4, 2) + pb_int(22, 1) + pb_int(17, 1)  # view_id 2 unknown
    snapshot = pb_int(1, 1) + pb_int(2, 7) + pb_bytes(3, root) + pb_bytes(3, child)
    data = pb_packet(pb_int(8, 500), pb_int(10, 1), pb_int(13, 3), pb_bytes(12, strings),
                     pb_bytes(112, pb_bytes(4, snapshot)))
    return e.write_temp(directory, 'vc.pb', data)


class ViewCaptureTest(e.TempDirTest):
    def test_rows_and_args(self):
        path = trace(self.dir)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.winscope.viewcapture;'
            'SELECT id, ts, package_name, window_name FROM android_viewcapture;'
            'SELECT snapshot_id, node_id, hashcode, parent_id, view_id, class_name '
            'FROM android_viewcapture_view;'
            'SELECT key, display_value FROM android_viewcapture JOIN args USING (arg_set_id) '
            'ORDER BY args.id;'
            "SELECT value FROM stats WHERE name = "
            "'winscope_viewcapture_missing_interned_string_parse_errors'", path),
            '"id","ts","package_name","window_name"\n0,500,"com.example","[NULL]"\n\n'
            '"snapshot_id","node_id","hashcode","parent_id","view_id","class_name"\n'
            '0,0,77,4294967295,"NO_ID","DecorView"\n0,1,0,0,"[NULL]","[NULL]"\n\n'
            '"key","display_value"\n"package_name","com.example"\n'
            '"window_name","STRING DE-INTERNING ERROR"\n"window_name_iid","7"\n\n'
            '"value"\n2\n')  # window_name 7, view_id 2

    def test_view_args_deinterned_in_place(self):
        path = trace(self.dir)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.winscope.viewcapture;'
            'SELECT v.node_id, a.key, a.display_value FROM android_viewcapture_view v '
            'JOIN args a USING (arg_set_id) ORDER BY a.id', path),
            '"node_id","key","display_value"\n'
            '0,"parent_id","-1"\n0,"hashcode","77"\n0,"view_id","NO_ID"\n'
            '0,"class_name","DecorView"\n0,"width","1080"\n'
            '1,"id","1"\n1,"view_id","STRING DE-INTERNING ERROR"\n1,"view_id_iid","2"\n'
            '1,"text","Hello"\n1,"will_not_draw","true"\n')


if __name__ == '__main__':
    e.main()
