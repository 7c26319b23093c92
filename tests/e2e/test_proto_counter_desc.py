"""End-to-end: CounterDescriptor fields of proto counter tracks that land in
the track's source args."""
import weft_e2e as e


class ProtoCounterDescriptorTest(e.TempDirTest):
    def test_y_axis_share_key_arg(self):
        text = ''
        for uuid, extra in ((1, 'y_axis_share_key: "g1"'), (2, 'y_axis_share_key: "g1"'),
                            (3, ''), (4, 'type: COUNTER_THREAD_TIME_NS y_axis_share_key: "g2"')):
            text += ('packet { trusted_packet_sequence_id: 1 timestamp: 0 '
                     'track_descriptor { uuid: %d name: "c%d" counter { %s } } }\n'
                     'packet { trusted_packet_sequence_id: 1 timestamp: %d '
                     'track_event { track_uuid: %d type: TYPE_COUNTER counter_value: 1 } }\n'
                     % (uuid, uuid, extra, 1000 * uuid, uuid))
        path = e.textproto_trace(self.dir, 'counters.pb', text)
        out = e.query("select name, extract_arg(source_arg_set_id, 'y_axis_share_key') "
                      "from counter_track order by name", path)
        self.assertEqual(out.splitlines()[1:],
                         ['"c1","g1"', '"c2","g1"', '"c3","[NULL]"', '"c4","g2"'])
        keys = e.query("select a.key from counter_track t join args a "
                       "on a.arg_set_id = t.source_arg_set_id where t.name = 'c4' order by a.id",
                       path)
        self.assertEqual(keys.splitlines()[1:],
                         ['"source"', '"trace_id"', '"is_root_in_scope"',
                          '"builtin_counter_type"', '"y_axis_share_key"'])


if __name__ == '__main__':
    e.main()
