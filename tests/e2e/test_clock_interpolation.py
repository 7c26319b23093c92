"""End-to-end: --clock-interpolation and the manifest's weft_clock_interpolation
field, on a generated trace whose second clock drifts 50 ppm."""
import json
import os
import zipfile

import weft_e2e as e

BOOT = 6
CLOCK_B = 200  # machine B's clock, as a trace-defined (global) clock
START = 1000000000
SYNC_EVERY = 10000000000  # 10 s
SYNCS = 11                # 0 s .. 100 s
EVENT_EVERY = 1299999937  # about 1.3 s, so events fall all over each gap


def b_time(ta):
    """What machine B's clock, 50 ppm fast and 777 ns ahead, reads at A's ta."""
    return ta + (ta - START) // 20000 + 777


def clock_snapshot(ta):
    clock = lambda cid, ts: e.pb_bytes(1, e.pb_int(1, cid) + e.pb_int(2, ts))
    return e.pb_packet(e.pb_bytes(6, clock(BOOT, ta) + clock(CLOCK_B, b_time(ta))))


def instant_on_b(ta):
    """An instant event stamped with B's clock; its name is A's true time."""
    event = e.pb_int(9, 3) + e.pb_bytes(23, 'at_%d' % ta)
    return e.pb_packet(e.pb_int(8, b_time(ta)), e.pb_int(58, CLOCK_B), e.pb_int(10, 1),
                       e.pb_bytes(11, event))


def drift_trace():
    thread = e.pb_packet(e.pb_int(10, 1), e.pb_bytes(44, e.pb_int(1, 5) + e.pb_int(2, 5)))
    packets = [thread] + [clock_snapshot(START + i * SYNC_EVERY) for i in range(SYNCS)]
    end = START + (SYNCS - 1) * SYNC_EVERY
    packets += [instant_on_b(ta) for ta in range(START + 1, end, EVENT_EVERY)]
    return b''.join(packets)


class ClockInterpolationTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 'drift.pb', drift_trace())

    def max_error(self, *inputs, options=()):
        out = e.query("select name, ts from slice where name like 'at_%'", *inputs,
                      options=options)
        rows = [line.split(',') for line in out.split()[1:]]
        self.assertGreater(len(rows), 70)
        return max(abs(int(ts) - int(name.strip('"')[3:])) for name, ts in rows)

    def manifest_zip(self, mode):
        body = {'version': 1, 'files': [{'path': 'drift.pb'}]}
        if mode:
            body['weft_clock_interpolation'] = mode
        path = os.path.join(self.dir, 'with_manifest.zip')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('manifest.json', json.dumps({'perfetto_manifest': body}))
            z.write(self.trace, 'drift.pb')
        return path

    def test_linear_corrects_50ppm_drift_between_snapshots(self):
        nearest = self.max_error(self.trace)
        linear = self.max_error(self.trace, options=('--clock-interpolation', 'linear'))
        print('\n50 ppm drift, snapshots every 10 s: max alignment error '
              'nearest %d ns, linear %d ns' % (nearest, linear))
        self.assertGreater(nearest, 400000)  # up to 10 s * 50 ppm = 500 us
        self.assertLess(linear, 1000)
        self.assertEqual(self.max_error(self.trace, options=('--clock-interpolation',
                                                             'nearest')), nearest)

    def test_manifest_field_selects_linear_and_the_flag_overrides_it(self):
        nearest = self.max_error(self.trace)
        self.assertLess(self.max_error(self.manifest_zip('linear')), 1000)
        self.assertEqual(self.max_error(self.manifest_zip('nearest')), nearest)
        self.assertEqual(self.max_error(self.manifest_zip(None)), nearest)
        self.assertEqual(self.max_error(self.manifest_zip('linear'),
                                        options=('--clock-interpolation', 'nearest')),
                         nearest)

    def test_bad_values_are_errors(self):
        rc, _, err = e.run('--clock-interpolation', 'cubic', '-Q', 'select 1', self.trace)
        self.assertNotEqual(rc, 0)
        self.assertIn('nearest or linear', err)
        rc, _, err = e.run('-Q', 'select 1', self.manifest_zip('cubic'))
        self.assertNotEqual(rc, 0)
        self.assertIn('weft_clock_interpolation', err)


if __name__ == '__main__':
    e.main()
