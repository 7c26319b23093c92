"""End-to-end: the weft_placement table and `weft --placement` (how each
trace file reached trace time; src/core/placement.c)."""
import json

import weft_e2e as e
from test_merge import BOOT, REAL, MergeBase, app_json, manifest, slice_packets, snapshot

COLUMNS = 'file_name, rule, is_guess, clock_path, offset_ns, dropped_events'


class PlacementTest(MergeBase):
    def placement(self, *args):
        out = e.query('select %s from weft_placement order by trace_file_id' % COLUMNS, *args)
        return out.splitlines()[1:]

    def test_snapshot_placed_file(self):
        # The phone's MONOTONIC events reach BOOTTIME (trace time) through
        # its own snapshot: 4 s apart.
        phone = self.proto('phone.pb', snapshot([(BOOT, 5000000000), (3, 1000000000)]) +
                           'packet { timestamp: 1100000000 timestamp_clock_id: 3 '
                           'trusted_packet_sequence_id: 1 track_event { type: TYPE_INSTANT '
                           'name: "m" } }\n')
        self.assertEqual(self.placement(phone), [
            '"%s","clock_snapshot",0,"MONOTONIC@0 -> BOOTTIME@0",4000000000,0' % phone])

    def test_realtime_rendezvous_pair(self):
        # Two machines, each with BOOTTIME and REALTIME: the second reaches
        # the first's BOOTTIME through REALTIME.
        a = self.proto('a.pb', snapshot([(BOOT, 1000), (REAL, 10000000)]) +
                       slice_packets(1, 1, 'a', 2000, 10))
        b = self.proto('b.pb', snapshot([(BOOT, 500), (REAL, 10000000)]) +
                       slice_packets(1, 2, 'b', 600, 10))
        rows = self.placement('--machine', 'a.pb=phone', '--machine', 'b.pb=server', a, b)
        self.assertEqual(rows[0], '"%s","trace_time",0,"BOOTTIME@phone",0,0' % a)
        self.assertEqual(rows[1], '"%s","realtime_rendezvous",0,"BOOTTIME@server -> '
                         'REALTIME@server -> REALTIME@phone -> BOOTTIME@phone",500,0' % b)

    def test_same_domain_guess(self):
        # Two machines with BOOTTIME only: the second's BOOTTIME is taken as
        # the first's, a guess.
        a = self.proto('a.pb', snapshot([(BOOT, 1000), (3, 1000)]) +
                       slice_packets(1, 1, 'a', 2000, 10))
        b = self.proto('b.pb', snapshot([(BOOT, 500), (3, 700)]) +
                       slice_packets(1, 2, 'b', 600, 10))
        rows = self.placement('--machine', 'a.pb=phone', '--machine', 'b.pb=server', a, b)
        self.assertEqual(rows[1], '"%s","same_domain_guess",1,"BOOTTIME@server -> '
                         'BOOTTIME@phone",0,0' % b)

    def test_manifest_pin_with_offset_and_an_unrelated_clockless_file(self):
        phone = self.proto('phone.pb', snapshot([(BOOT, 1000000), (REAL, 5000000)]) +
                           slice_packets(1, 10, 'phone_work', 2000000, 1000))
        app = e.write_temp(self.dir, 'app.json', app_json('app_work', 100, 5))
        pinned = self.placement('--sync', 'app.json=phone.pb', '--offset', 'app.json=250ms',
                                phone, app)
        self.assertEqual(pinned[1], '"%s","manifest_pin",0,"file@0 -> BOOTTIME@0",'
                         '250000000,0' % app)
        m = e.write_temp(self.dir, 'm.json', manifest([
            {'path': 'phone.pb'},
            {'path': 'app.json', 'clocks': {'sync_to': {'file': 'phone.pb', 'clock': 'BOOTTIME'},
                                            'offset_ns': 250000000}}]))
        self.assertEqual(self.placement('--manifest', m, phone, app), pinned)
        unrelated = self.placement(phone, app)
        self.assertEqual(unrelated[1], '"%s","private_pin",1,"file@0 -> BOOTTIME@0",0,0' % app)

    def test_manifest_relation_keeps_the_files_clocks(self):
        a = self.proto('a.pb', snapshot([(BOOT, 1000), (3, 1000)]) +
                       slice_packets(1, 1, 'a', 2000, 10))
        b = self.proto('b.pb', snapshot([(BOOT, 500), (3, 700)]) +
                       slice_packets(1, 2, 'b', 600, 10))
        rows = self.placement('--machine', 'a.pb=phone', '--machine', 'b.pb=server',
                              '--sync', 'b.pb=a.pb', '--clock', 'b.pb=BOOTTIME',
                              '--offset', 'b.pb=1s', a, b)
        self.assertEqual(rows[1].split(',')[1:3], ['"manifest_relate"', '0'])

    def test_dropped_events_are_counted(self):
        # An offset that puts the file before the start of time drops it.
        phone = self.proto('phone.pb', snapshot([(BOOT, 1000000), (REAL, 5000000)]) +
                           slice_packets(1, 10, 'phone_work', 2000000, 1000))
        app = e.write_temp(self.dir, 'app.json', json.dumps({'traceEvents': [
            {'ph': 'X', 'pid': 9, 'tid': 9, 'ts': 1, 'dur': 1, 'name': 'x'}]}))
        rows = self.placement('--quiet', '--sync', 'app.json=phone.pb', '--offset',
                              'app.json=-1000s', phone, app)
        self.assertEqual(rows[1].split(',')[-1], '1')

    def test_placement_flag_prints_the_table(self):
        phone = self.proto('phone.pb', snapshot([(BOOT, 1000), (REAL, 5000)]) +
                           slice_packets(1, 10, 'w', 2000, 10))
        rc, out, err = e.run('--placement', phone)
        self.assertEqual(rc, 0, err)
        self.assertIn('"rule"', out.splitlines()[0])
        self.assertIn('"trace_time"', out)


if __name__ == '__main__':
    e.main()
