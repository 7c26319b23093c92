"""End-to-end: PerfSample sampling streams (proto_perf_counters.c,
model/stack_profile_perf.c): perf sessions, the perf_cpu_counter tracks of
their timebase and follower events, and the counts of each sample. Every
expected answer is worked out by hand from the rules in those files."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def defaults_packet(seq, perf_defaults=None):
    """A packet starting sequence seq with TracePacketDefaults (holding
    PerfSampleDefaults `perf_defaults`, when given)."""
    tpd = pb_bytes(12, perf_defaults) if perf_defaults is not None else pb_int(58, 6)
    return pb_packet(pb_int(8, 1), pb_int(10, seq), pb_int(13, 1), pb_bytes(59, tpd))


def sample(seq, ts, cpu, timebase=None, followers=(), lost=0):
    body = pb_int(1, cpu) + pb_int(2, 10) + pb_int(3, 11)
    body += pb_int(6, timebase) if timebase is not None else b''
    body += b''.join(pb_int(7, v) for v in followers)
    body += pb_int(17, lost) if lost else b''
    return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_int(13, 2), pb_bytes(66, body))


def timebase(counter=None, name=None, tracepoint=None, raw=None):
    out = pb_int(2, 100)
    out += pb_int(4, counter) if counter is not None else b''
    out += pb_bytes(3, pb_bytes(1, tracepoint)) if tracepoint else b''
    out += pb_bytes(5, raw) if raw else b''
    out += pb_bytes(10, name) if name else b''
    return pb_bytes(1, out)


def follower(counter=None, name=None, tracepoint=None, raw=None):
    out = pb_int(1, counter) if counter is not None else b''
    out += pb_bytes(2, pb_bytes(1, tracepoint)) if tracepoint else b''
    out += pb_bytes(3, raw) if raw else b''
    out += pb_bytes(4, name) if name else b''
    return pb_bytes(4, out)


TRACKS = ('select t.name, t.perf_session_id, t.cpu, t.is_timebase, '
          'group_concat(c.ts || "=" || cast(c.value as int), " ") as counts '
          'from perf_counter_track t left join counter c on c.track_id = t.id '
          'group by t.id order by t.id')


class PerfCountersTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'perf.pb', b''.join(packets))

    def test_timebase_and_followers_per_session_and_cpu(self):
        path = self.trace(
            defaults_packet(1, timebase(counter=1) + follower(counter=10) + follower(counter=11)),
            sample(1, 100, 0, timebase=5, followers=(6, 7, 8)),  # the extra count is dropped
            sample(1, 200, 2, followers=(9,)),  # no timebase count: no timebase counter
            sample(1, 300, 0, timebase=50),
            defaults_packet(2, timebase(counter=2)),
            sample(2, 400, 0, timebase=1))
        self.assertEqual(e.query(TRACKS, path),
                         '"name","perf_session_id","cpu","is_timebase","counts"\n'
                         '"cpu-clock",0,0,1,"100=5 300=50"\n'
                         '"cpu-cycles",0,0,0,"100=6"\n'
                         '"instructions",0,0,0,"100=7"\n'
                         '"cpu-clock",0,2,1,"[NULL]"\n'
                         '"cpu-cycles",0,2,0,"200=9"\n'
                         '"instructions",0,2,0,"[NULL]"\n'
                         '"page-faults",1,0,1,"400=1"\n')
        self.assertEqual(e.query('select * from perf_session', path),
                         '"id","perf_session_id","cmdline"\n0,0,"[NULL]"\n1,1,"[NULL]"\n')
        self.assertEqual(e.query('select ts, cpu, perf_session_id from perf_sample order by ts',
                                 path),
                         '"ts","cpu","perf_session_id"\n100,0,0\n200,2,0\n300,0,0\n400,0,1\n')

    def test_event_names_and_shard_stats(self):
        shard = pb_int(2, 4) + pb_int(3, 1)
        path = self.trace(
            defaults_packet(1, timebase(counter=1, name='mine') + follower(tracepoint='sched:x') +
                            follower(raw=pb_int(1, 4) + pb_int(2, 0x11)) + follower(counter=99) +
                            shard),
            sample(1, 100, 0),
            # no PerfSampleDefaults: the per-cpu timer
            defaults_packet(2), sample(2, 200, 1),
            # a sample reporting lost records still opens its session and tracks
            defaults_packet(3, timebase(tracepoint='sched/sched_switch')),
            sample(3, 300, 0, lost=5))
        self.assertEqual(e.query('select name, perf_session_id, cpu, is_timebase '
                                 'from perf_counter_track order by id', path),
                         '"name","perf_session_id","cpu","is_timebase"\n'
                         '"mine",0,0,1\n"sched:x",0,0,0\n"raw.0x4.0x11.0x0.0x0",0,0,0\n'
                         '"unknown",0,0,0\n"cpu-clock",1,1,1\n"sched/sched_switch",2,0,1\n')
        self.assertEqual(e.query("select name, idx, value from stats where name like "
                                 "'perf_%shard%' order by name", path),
                         '"name","idx","value"\n"perf_chosen_process_shard",0,1\n'
                         '"perf_process_shard_count",0,4\n')

    def test_each_sample_reads_a_counter_set(self):
        path = self.trace(
            defaults_packet(1, timebase(counter=1) + follower(counter=10)),
            sample(1, 100, 0, timebase=1, followers=(2,)), sample(1, 150, 0),
            sample(1, 200, 0, timebase=3, followers=(4,)), sample(1, 250, 0, followers=(5,)))
        # a set is named by its first row's id; a sample of no counts has none
        self.assertEqual(e.query('select * from __intrinsic_profiler_counter_set', path),
                         '"id","counter_set_id","counter_id"\n'
                         '0,0,0\n1,0,1\n2,2,2\n3,2,3\n4,4,4\n')
        self.assertEqual(e.query('select s.id, s.source, s.session_id, s.counter_set_id '
                                 'from perf_sample p join __intrinsic_profiler_sample s '
                                 'using (id) order by s.id', path),
                         '"id","source","session_id","counter_set_id"\n'
                         '0,"linux.perf",0,0\n1,"linux.perf",0,"[NULL]"\n'
                         '2,"linux.perf",0,2\n3,"linux.perf",0,4\n')


if __name__ == '__main__':
    e.main()
