"""End-to-end: arg set ids and the order of the args table are Perfetto's
(src/model/args_order.c). A set's id is the args row of its first arg; a
slice's args are written when the slice leaves its track's stack (ended,
or passed by a later event on the track), and the slices still on stacks
at the end of the trace track by track in the order of Perfetto's slice
tracker map; identical sets share the id of the first one written. Every
expectation below is what Perfetto's trace_processor_shell answers on the
same JSON."""
import hashlib
import json

import weft_e2e as e


def chrome_json(events):
    return json.dumps({'traceEvents': events})


class ArgSetOrderTest(e.TempDirTest):
    def load(self, events, sql):
        return e.query(sql, e.write_temp(self.dir, 'trace.json', chrome_json(events)))

    def test_a_complete_slice_is_written_when_a_later_event_passes_it(self):
        events = [
            {'pid': 1, 'tid': 1, 'ts': 1, 'ph': 'X', 'name': 'a', 'dur': 10,
             'args': {'x': 1, 'y': 2}},
            {'pid': 1, 'tid': 1, 'ts': 2, 'ph': 'X', 'name': 'b', 'dur': 1, 'args': {'z': 1}},
            {'pid': 1, 'tid': 1, 'ts': 5, 'ph': 'X', 'name': 'c', 'dur': 1, 'args': {'w': 1}},
            {'pid': 1, 'tid': 1, 'ts': 20, 'ph': 'X', 'name': 'd', 'dur': 1, 'args': {'v': 1}},
        ]
        out = self.load(events, 'select id, name, arg_set_id from slice; '
                        'select id, arg_set_id, key from args')
        # the thread track's dimension set first (row 0); b and c leave the
        # stack when the next event passes them, a when d starts, d last
        self.assertEqual(out, '"id","name","arg_set_id"\n'
                         '0,"a",3\n1,"b",1\n2,"c",2\n3,"d",5\n\n'
                         '"id","arg_set_id","key"\n'
                         '0,0,"utid"\n1,1,"args.z"\n2,2,"args.w"\n3,3,"args.x"\n'
                         '4,3,"args.y"\n5,5,"args.v"\n')

    def test_end_args_join_the_set_and_identical_sets_share_an_id(self):
        events = [
            {'pid': 1, 'tid': 1, 'ts': 10, 'ph': 'B', 'name': 'a', 'args': {'x': 1}},
            {'pid': 1, 'tid': 2, 'ts': 13, 'ph': 'X', 'name': 'b', 'dur': 2,
             'args': {'x': 1, 'y': 2}},
            {'pid': 1, 'tid': 1, 'ts': 14, 'ph': 'E', 'args': {'y': 2}},
            {'pid': 1, 'tid': 2, 'ts': 20, 'ph': 'X', 'name': 'c', 'dur': 1, 'args': {'z': 3}},
            {'pid': 1, 'tid': 1, 'ts': 21, 'ph': 'i', 'name': 'd', 's': 't', 'args': {'w': 4}},
            {'pid': 1, 'tid': 1, 'ts': 21, 'ph': 'i', 'name': 'e', 's': 't', 'args': {'w': 5}},
        ]
        out = self.load(events, 'select id, name, arg_set_id from slice order by id; '
                        'select arg_set_id, key, display_value from args order by id')
        # a's begin and end args are one set, written when a ends; b, which
        # ends later with the same args, shares it; the two instants at one
        # time stay stacked and are written at the end, bottom first, before
        # the other thread's c
        self.assertEqual(out, '"id","name","arg_set_id"\n'
                         '0,"a",2\n1,"b",2\n2,"c",6\n3,"d",4\n4,"e",5\n\n'
                         '"arg_set_id","key","display_value"\n'
                         '0,"utid","1"\n1,"utid","2"\n2,"args.x","1"\n2,"args.y","2"\n'
                         '4,"args.w","4"\n5,"args.w","5"\n6,"args.z","3"\n')

    def open_slices_on_threads(self, threads):
        events = []
        for t in range(1, threads + 1):
            events.append({'pid': 1, 'tid': t, 'ts': t, 'ph': 'B', 'name': 'o%d' % t,
                           'args': {'k': t}})
            events.append({'pid': 1, 'tid': t, 'ts': t + 1, 'ph': 'B', 'name': 'i%d' % t,
                           'args': {'n': t}})
        return events

    def test_slices_open_at_the_end_are_written_in_the_tracker_map_order(self):
        out = self.load(self.open_slices_on_threads(20),
                        'select name, arg_set_id from slice order by arg_set_id')
        # the 20 threads' dimension sets are rows 0-19; then each thread's
        # stack, outer slice first, in the order of the map's slots
        order = [13, 19, 1, 4, 5, 14, 17, 10, 8, 7, 6, 16, 12, 20, 9, 18, 15, 2, 11, 3]
        expected = '"name","arg_set_id"\n' + ''.join(
            '"o%d",%d\n"i%d",%d\n' % (t, 20 + 2 * i, t, 21 + 2 * i) for i, t in enumerate(order))
        self.assertEqual(out, expected)

    def test_the_tracker_map_order_after_it_grows(self):
        # 1,000 tracks: the map grows from 1,024 slots past 768 tracks
        events = [{'pid': 1, 'tid': t, 'ts': t, 'ph': 'B', 'name': 'o', 'args': {'k': t}}
                  for t in range(1, 1001)]
        out = self.load(events, 'select track_id from slice order by arg_set_id')
        tracks = [int(x) for x in out.split('\n')[1:-1]]
        self.assertEqual(tracks[:12], [270, 811, 556, 944, 81, 391, 994, 315, 677, 164, 638, 244])
        self.assertEqual(hashlib.md5(('\n'.join(map(str, tracks)) + '\n').encode()).hexdigest(),
                         'dcb6aac78834223608080bee06394178')


if __name__ == '__main__':
    e.main()
