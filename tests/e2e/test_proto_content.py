"""End-to-end: proto content analysis as weft does it — the annotated
roots of experimental_proto_path (model/proto_content.h). Traces are
generated here; the expected answers follow from the rules."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

TRACK_EVENT, TRACK_DESCRIPTOR, INTERNED_DATA = 11, 60, 12
TYPE, NAME_IID, CATEGORIES, NAME, CATEGORY_IIDS, TRACK_UUID = 9, 10, 22, 23, 3, 11
SLICE_BEGIN, SLICE_END, INSTANT = 1, 2, 3


def event(ts, *fields):
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(TRACK_EVENT, b''.join(fields)))


def thread_track():
    return pb_packet(pb_int(10, 1), pb_int(13, 1), pb_bytes(
        TRACK_DESCRIPTOR, pb_int(1, 5) + pb_bytes(4, pb_int(1, 1) + pb_int(2, 1))))


ROOTS = ("select p.id, p.parent_id, p.field_type, "
         "extract_arg(p.arg_set_id, 'event.category') as cat, "
         "extract_arg(p.arg_set_id, 'event.name') as name "
         "from experimental_proto_path p order by p.id")


class ProtoContentTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'content.pb', b''.join(packets))

    def test_one_root_per_category_and_name(self):
        path = self.trace(
            thread_track(),
            event(100, pb_int(TRACK_UUID, 5), pb_int(TYPE, SLICE_BEGIN),
                  pb_bytes(CATEGORIES, 'c1'), pb_bytes(NAME, 'a')),
            event(110, pb_int(TRACK_UUID, 5), pb_int(TYPE, SLICE_END), pb_bytes(CATEGORIES, 'c1')),
            event(120, pb_int(TRACK_UUID, 5), pb_int(TYPE, INSTANT),
                  pb_bytes(CATEGORIES, 'c1'), pb_bytes(NAME, 'a')),
            event(130, pb_int(TRACK_UUID, 5), pb_int(TYPE, INSTANT),
                  pb_bytes(CATEGORIES, 'c1'), pb_bytes(CATEGORIES, 'c2'),
                  pb_bytes(NAME, 'a')))
        # The end event has no name: its own root, name NULL.
        self.assertEqual(e.query(ROOTS, path),
                         '"id","parent_id","field_type","cat","name"\n'
                         '0,"[NULL]","TracePacket","c1","a"\n'
                         '1,"[NULL]","TracePacket","c1","[NULL]"\n'
                         '2,"[NULL]","TracePacket","c1,c2","a"\n')

    def test_missing_category_and_interned_name(self):
        interned = pb_packet(pb_int(10, 1), pb_int(13, 2), pb_bytes(
            INTERNED_DATA, pb_bytes(2, pb_int(1, 7) + pb_bytes(2, 'interned'))))
        path = self.trace(
            thread_track(), interned,
            event(100, pb_int(TRACK_UUID, 5), pb_int(TYPE, INSTANT), pb_int(NAME_IID, 7)),
            event(110, pb_int(TRACK_UUID, 5), pb_int(TYPE, INSTANT), pb_int(NAME_IID, 8)))
        # An unknown iid names nothing; both args stay, as NULL strings.
        self.assertEqual(e.query(ROOTS, path),
                         '"id","parent_id","field_type","cat","name"\n'
                         '0,"[NULL]","TracePacket","[NULL]","interned"\n'
                         '1,"[NULL]","TracePacket","[NULL]","[NULL]"\n')
        self.assertEqual(e.query("select key, value_type, display_value from args "
                                 "where key glob 'event.*' order by arg_set_id, key", path),
                         '"key","value_type","display_value"\n'
                         '"event.category","string","[NULL]"\n'
                         '"event.name","string","interned"\n'
                         '"event.category","string","[NULL]"\n'
                         '"event.name","string","[NULL]"\n')

    def test_event_without_type_or_phase_is_not_annotated(self):
        path = self.trace(thread_track(), event(100, pb_int(TRACK_UUID, 5),
                                                pb_bytes(CATEGORIES, 'c'), pb_bytes(NAME, 'n')))
        self.assertEqual(e.query("select count(*) as n from experimental_proto_path", path),
                         '"n"\n0\n')

    def test_content_breakdown_is_empty(self):
        path = self.trace(thread_track(), event(100, pb_int(TRACK_UUID, 5), pb_int(TYPE, INSTANT),
                                                pb_bytes(NAME, 'n')))
        self.assertEqual(e.query("select count(*) as n from experimental_proto_content", path),
                         '"n"\n0\n')


if __name__ == '__main__':
    e.main()
