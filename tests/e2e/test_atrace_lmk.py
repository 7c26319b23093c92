"""End-to-end: lmkd's atrace markers (an "lmk,<pid>,<reason>,<adj>" slice
and the "kill_one_process" counter) become "mem.lmk" instants on the killed
process's LMK track, the slice also an oom_score_adj sample, as in
Perfetto."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def ftrace_print(ts, pid, buf):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(3, pb_bytes(2, buf)))


def ftrace_bundle(*events):
    return pb_packet(pb_bytes(1, pb_int(1, 0) + b''.join(events)))


# Kills of 1000 (adj 900, extra fields), 3001 (adj 0); too few fields, a
# bad pid, an I marker and a pid-0 counter reset make nothing.
MARKERS = (
    '# tracer: nop\n'
    '  lmkd-500   (  500) [000] ....  1.000100: tracing_mark_write: B|500|lmk,1000,3,900,x\n'
    '  lmkd-500   (  500) [000] ....  1.000110: tracing_mark_write: E|500\n'
    '  lmkd-500   (  500) [000] ....  1.000120: tracing_mark_write: B|500|lmk,3000,3\n'
    '  lmkd-500   (  500) [000] ....  1.000130: tracing_mark_write: E|500\n'
    '  lmkd-500   (  500) [000] ....  1.000140: tracing_mark_write: B|500|lmk,,3001,,3,0\n'
    '  lmkd-500   (  500) [000] ....  1.000150: tracing_mark_write: E|500\n'
    '  lmkd-500   (  500) [000] ....  1.000160: tracing_mark_write: B|500|lmk,abc,3,5\n'
    '  lmkd-500   (  500) [000] ....  1.000170: tracing_mark_write: E|500\n'
    '  lmkd-500   (  500) [000] ....  1.000180: tracing_mark_write: I|500|lmk,5000,1,7\n'
    '  lmkd-500   (  500) [000] ....  1.000200: tracing_mark_write: C|500|kill_one_process|4000\n'
    '  lmkd-500   (  500) [000] ....  1.000210: tracing_mark_write: C|500|kill_one_process|0\n'
)

LMK = ("select s.ts, s.dur, t.name, t.type, p.pid from slice s join process_track t "
       "on s.track_id = t.id join process p using(upid) where s.name = 'mem.lmk' order by s.ts")
COUNTERS = ("select c.ts, t.name, t.type, p.pid, c.value from counter c join "
            "process_counter_track t on c.track_id = t.id join process p using(upid) "
            "order by c.ts")


class AtraceLmkTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_lmk_slices_and_kill_counter(self):
        p = e.write_temp(self.dir, 'trace.systrace', MARKERS)
        self.assertEqual(self.query(LMK, p), (
            '"ts","dur","name","type","pid"\n'
            '1000100000,0,"LMK","android_lmk",1000\n'
            '1000140000,0,"LMK","android_lmk",3001\n'
            '1000200000,0,"LMK","android_lmk",4000\n'))
        self.assertEqual(self.query(COUNTERS, p), (
            '"ts","name","type","pid","value"\n'
            '1000100000,"oom_score_adj","oom_score_adj",1000,900.000000\n'
            '1000140000,"oom_score_adj","oom_score_adj",3001,0.000000\n'
            '1000200000,"kill_one_process","atrace_counter",500,4000.000000\n'
            '1000210000,"kill_one_process","atrace_counter",500,0.000000\n'))
        # The marker slices themselves stay on lmkd's thread.
        self.assertEqual(self.query("select count(*) from slice where name glob 'lmk,*'", p),
                         '"count(*)"\n5\n')

    def test_print_events_and_an_existing_process(self):
        tree = pb_packet(pb_bytes(2, pb_bytes(1, pb_int(1, 1000) + pb_int(2, 1) +
                                              pb_bytes(3, 'victim'))))
        trace = tree + ftrace_bundle(ftrace_print(100, 500, 'B|500|lmk,1000,3,-100\n'),
                                     ftrace_print(110, 500, 'E|500\n'),
                                     ftrace_print(120, 500, 'C|500|kill_one_process|1000\n'))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        self.assertEqual(self.query(
            "select s.ts, p.pid, p.name from slice s join process_track t on s.track_id = t.id "
            "join process p using(upid) where s.name = 'mem.lmk' order by s.ts", p),
            '"ts","pid","name"\n100,1000,"victim"\n120,1000,"victim"\n')
        self.assertEqual(self.query(
            "select count(*) from track where type = 'android_lmk'", p), '"count(*)"\n1\n')
        self.assertEqual(self.query(
            "select ts, value from counter c join process_counter_track t on c.track_id = t.id "
            "where t.name = 'oom_score_adj'", p), '"ts","value"\n100,-100.000000\n')


if __name__ == '__main__':
    e.main()
