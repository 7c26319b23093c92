"""End-to-end: ChromeTrigger packets (TracePacket.chrome_trigger) and the
chrome_study translation table that names their hashes."""
import weft_e2e as e

TRACE = '''
packet { translation_table { chrome_study { hash_to_name { key: 10 value: "study1" } } } }
packet { trusted_packet_sequence_id: 1 timestamp: 0 incremental_state_cleared: true
         track_descriptor { uuid: 1 thread { pid: 5 tid: 6 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 1
         track_event { track_uuid: 1 type: TYPE_INSTANT name: "src" flow_ids: 77 } }
packet { trusted_packet_sequence_id: 1 timestamp: 2 chrome_trigger { trigger_name_hash: 10 flow_id: 77 } }
packet { trusted_packet_sequence_id: 1 timestamp: 3 chrome_trigger { trigger_name: "explicit" trigger_name_hash: 10 } }
packet { trusted_packet_sequence_id: 1 timestamp: 4 chrome_trigger { trigger_name_hash: 30 flow_id: 78 } }
packet { trusted_packet_sequence_id: 1 timestamp: 5 chrome_trigger { } }
'''


class ProtoChromeTriggerTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.path = e.textproto_trace(self.dir, 'trigger.pb', TRACE)

    def rows(self, sql):
        return e.query(sql, self.path).splitlines()[1:]

    def test_slices_and_args(self):
        self.assertEqual(self.rows(
            "select s.ts, s.name, t.name, t.type, a.key, a.display_value, a.value_type "
            "from slice s join track t on s.track_id = t.id "
            "left join args a using(arg_set_id) where s.ts > 1 order by s.ts, a.id"), [
            '2,"chrome_trigger","Trace Triggers","triggers","chrome_trigger.name_hash","10","uint"',
            '2,"chrome_trigger","Trace Triggers","triggers","chrome_trigger.name","study1","string"',
            '3,"explicit","Trace Triggers","triggers","chrome_trigger.name_hash","10","uint"',
            '3,"explicit","Trace Triggers","triggers","chrome_trigger.name","explicit","string"',
            '4,"chrome_trigger","Trace Triggers","triggers","chrome_trigger.name_hash","30","uint"',
            '5,"chrome_trigger","Trace Triggers","triggers","chrome_trigger.name_hash","0","uint"'])

    def test_flow_and_metadata(self):
        self.assertEqual(self.rows(
            "select o.name, i.ts from flow f join slice o on f.slice_out = o.id "
            "join slice i on f.slice_in = i.id"), ['"src",2'])
        self.assertEqual(self.rows(
            "select int_value from metadata where name = 'cr-triggered_rule_name_hash' "
            "order by int_value"), ['0', '10', '10', '30'])


if __name__ == '__main__':
    e.main()
