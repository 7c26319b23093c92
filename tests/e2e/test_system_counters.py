"""End-to-end: Perfetto's rules for system counters (SysStats packets and
kernel counter events) that weft mirrors."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SYS_STATS = 7


def cpuidle_state(cpu, *entries):
    """A SysStats.CpuIdleState of cpu with (state, duration_us) entries."""
    return pb_bytes(16, pb_int(1, cpu) + b''.join(
        pb_bytes(2, pb_bytes(1, state) + pb_int(2, dur)) for state, dur in entries))


class SysStatsTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_cpuidle_states_are_cpu_counters(self):
        trace = (pb_packet(pb_int(8, 1000), pb_bytes(SYS_STATS, cpuidle_state(
                     0, ('C8', 500), ('C1', 7)) + cpuidle_state(2, ('C8', 9)))) +
                 pb_packet(pb_int(8, 2000), pb_bytes(SYS_STATS, cpuidle_state(0, ('C8', 600)))))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query(
            "select t.name, t.type, t.unit, t.cpu, c.ts, c.value, "
            "(select group_concat(key || '=' || display_value) from args a "
            " where a.arg_set_id = tr.dimension_arg_set_id) as dims "
            "from counter c join cpu_counter_track t on c.track_id = t.id "
            "join track tr on tr.id = t.id "
            "order by t.id, c.ts", p)
        self.assertEqual(out, '"name","type","unit","cpu","ts","value","dims"\n'
                         '"cpuidle0.C8","cpu_idle_state","us",0,1000,500.000000,"cpu=0,state=C8"\n'
                         '"cpuidle0.C8","cpu_idle_state","us",0,2000,600.000000,"cpu=0,state=C8"\n'
                         '"cpuidle0.C1","cpu_idle_state","us",0,1000,7.000000,"cpu=0,state=C1"\n'
                         '"cpuidle2.C8","cpu_idle_state","us",2,1000,9.000000,"cpu=2,state=C8"\n')


if __name__ == '__main__':
    e.main()
