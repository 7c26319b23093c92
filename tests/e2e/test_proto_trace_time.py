"""End-to-end: how a proto trace's timestamps reach trace time, as
Perfetto reads them: a packet without a timestamp is placed at the latest
time its file reached (every sequence and clock, ftrace events included);
a packet without a clock id is on the latest snapshot's primary clock; the
first timestamp converted from an explicit clock fixes the trace-time
clock, so that a later primary clock is converted like any other."""

import weft_e2e as e

SNAP_MONO = ('packet { trusted_packet_sequence_id: 9 clock_snapshot { '
             'primary_trace_clock: BUILTIN_CLOCK_MONOTONIC '
             'clocks { clock_id: 6 timestamp: 2000 } clocks { clock_id: 3 timestamp: 1500 } } }\n')


def instant(name, ts, clock=None, seq=1, uuid=1):
    clock_field = 'timestamp_clock_id: %d ' % clock if clock is not None else ''
    return ('packet { trusted_packet_sequence_id: %d timestamp: %d %s'
            'track_event { type: TYPE_INSTANT name: "%s" track_uuid: %d } }\n'
            % (seq, ts, clock_field, name, uuid))


def thread(seq, uuid, pid, ts=None):
    ts_field = 'timestamp: %d ' % ts if ts is not None else ''
    return ('packet { trusted_packet_sequence_id: %d %strack_descriptor { uuid: %d '
            'thread { pid: %d tid: %d } } }\n' % (seq, ts_field, uuid, pid, pid + 1))


class ProtoTraceTimeTest(e.TempDirTest):
    def load(self, text, sql):
        path = e.textproto_trace(self.dir, 't.pb', text)
        return e.query(sql, path).splitlines()[1:]

    def test_untimed_packets_at_the_files_latest_time(self):
        # Thread 20's descriptor has no timestamp: it is placed at 1000, the
        # latest time of the file when it is read (sequence 1's), not at its
        # own sequence's start; so thread 30 (at 500) is made before it. A
        # sequence's last time (800 on sequence 1) does not lower it.
        text = (thread(1, 1, 10, ts=1000) + instant('a', 1000) +
                thread(2, 2, 20) + instant('b', 1500, seq=2, uuid=2) +
                thread(3, 3, 30, ts=500) + instant('c', 600, seq=3, uuid=3) +
                instant('a2', 800) + thread(1, 4, 40) +
                instant('d', 1200, seq=3, uuid=4))
        self.assertEqual(self.load(text, 'select tid from thread where tid > 0 order by utid'),
                         ['30', '31', '10', '11', '20', '21', '40', '41'])

    def test_ftrace_events_count_toward_the_latest_time(self):
        # The untimed descriptor of thread 20 follows an ftrace event at
        # 5000: it is placed there, after thread 30's descriptor at 3000.
        text = (thread(1, 1, 10, ts=1000) +
                'packet { trusted_packet_sequence_id: 5 ftrace_events { cpu: 0 event { '
                'timestamp: 5000 pid: 50 sched_switch { prev_comm: "p" prev_pid: 50 '
                'prev_state: 0 next_comm: "n" next_pid: 51 } } } }\n' +
                thread(2, 2, 20) + thread(3, 3, 30, ts=3000))
        self.assertEqual(self.load(text, 'select tid from thread where tid > 0 order by utid'),
                         ['10', '11', '30', '31', '20', '21', '51', '50'])

    def test_packets_without_a_clock_are_on_the_primary_clock(self):
        # After a snapshot naming MONOTONIC primary, a packet without a
        # clock id is MONOTONIC: trace time as it is.
        text = SNAP_MONO + instant('a', 1000) + instant('b', 3000)
        self.assertEqual(self.load(text, 'select ts, name from slice'),
                         ['1000,"a"', '3000,"b"'])
        self.assertEqual(self.load(text, "select int_value from metadata "
                                         "where name = 'trace_time_clock_id'"), ['3'])

    def test_an_explicit_clock_fixes_trace_time(self):
        # "a" on an explicit BOOTTIME clock is converted before the snapshot:
        # trace time stays BOOTTIME (and no trace_time_clock_id row is
        # written). The snapshot's MONOTONIC is then only the clock of
        # packets without one: "c" (MONOTONIC 3000) is BOOTTIME 3500.
        text = (instant('a', 1000, clock=6) + SNAP_MONO + instant('b', 3000, clock=6) +
                instant('c', 3000) + instant('d', 3000, clock=3))
        self.assertEqual(self.load(text, 'select ts, name from slice'),
                         ['1000,"a"', '3000,"b"', '3500,"c"', '3500,"d"'])
        self.assertEqual(self.load(text, "select count(*) from metadata "
                                         "where name = 'trace_time_clock_id'"), ['0'])

    def test_a_sequence_clock_converted_later_fixes_trace_time_too(self):
        # Clock 64 of sequence 1 is related only by the snapshot after it:
        # "a" still converts (weft converts once every clock is known), and
        # trace time stays BOOTTIME.
        text = (instant('a', 100, clock=64) +
                'packet { trusted_packet_sequence_id: 1 clock_snapshot { '
                'primary_trace_clock: BUILTIN_CLOCK_MONOTONIC clocks { clock_id: 6 '
                'timestamp: 2000 } clocks { clock_id: 3 timestamp: 1500 } '
                'clocks { clock_id: 64 timestamp: 50 } } }\n' +
                instant('b', 3000, clock=6) + instant('c', 3000))
        self.assertEqual(self.load(text, 'select ts, name from slice'),
                         ['2050,"a"', '3000,"b"', '3500,"c"'])

    def test_a_clockless_packet_does_not_fix_trace_time(self):
        # A packet without a clock id converts nothing: the snapshot after
        # it still makes MONOTONIC trace time ("b" on BOOTTIME is 500
        # less). Perfetto keeps "a" at 1000 (its raw value, read as trace
        # time before the switch); weft places it on BOOTTIME, which the
        # switch then converts (docs/compatibility.md).
        text = instant('a', 1000) + SNAP_MONO + instant('b', 3000, clock=6)
        self.assertEqual(self.load(text, 'select ts, name from slice'),
                         ['500,"a"', '2500,"b"'])


    def test_boottime_without_a_snapshot_is_related_to_the_file(self):
        # ftrace converts BOOTTIME times while no snapshot places them: the
        # file's BOOTTIME is related to its own timeline (clock 11) at
        # zero, a snapshot the table shows. Packets without a clock convert
        # nothing, and a snapshot first leaves only itself.
        ftrace = ('packet { ftrace_events { cpu: 0 event { timestamp: 5000 pid: 1 '
                  'print { buf: "C|1|c|1\\n" } } } }\n')
        sql = ('select ts, clock_id, clock_name, clock_value, snapshot_id '
               'from clock_snapshot order by id')
        self.assertEqual(self.load(ftrace + instant('a', 6000), sql),
                         ['0,6,"BOOTTIME",0,0', '0,11,"[NULL]",0,0'])
        self.assertEqual(self.load(instant('a', 6000), sql), [])
        self.assertEqual(self.load(SNAP_MONO + ftrace, sql),
                         ['1500,6,"BOOTTIME",2000,0', '1500,3,"MONOTONIC",1500,0'])

if __name__ == '__main__':
    e.main()
