"""End-to-end: Perfetto's rules for system counters (SysStats packets and
kernel counter events) that weft mirrors."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SYS_STATS = 7
ANDROID_SYSTEM_PROPERTY = 86


def ftrace_print(ts, pid, buf):
    """A TracePacket holding one ftrace print event on cpu 0."""
    event = pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(3, pb_bytes(2, buf)))
    return pb_packet(pb_bytes(1, pb_int(1, 0) + event))


def track_rows(query, path):
    return query("select t.name, t.type, c.ts, c.value, "
                 "(select group_concat(key || '=' || display_value) from args a "
                 " where a.arg_set_id = t.dimension_arg_set_id) as dims "
                 "from counter c join track t on c.track_id = t.id order by t.id, c.ts", path)


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


class BatteryStatsTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_atrace_battery_stats_counters_share_the_property_track(self):
        prop = pb_bytes(1, pb_bytes(1, 'debug.tracing.battery_stats.screen') + pb_bytes(2, '1'))
        trace = (pb_packet(pb_int(8, 1000), pb_bytes(ANDROID_SYSTEM_PROPERTY, prop)) +
                 ftrace_print(2000, 10, 'C|10|battery_stats.screen|0') +
                 ftrace_print(3000, 10, 'C|10|battery_stats.wifi|1') +
                 ftrace_print(4000, 10, 'C|10|battery_stat|2'))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        self.assertEqual(track_rows(self.query, p), '"name","type","ts","value","dims"\n'
                         '"battery_stats.screen","battery_stats",1000,1.000000,'
                         '"counter_key=battery_stats.screen"\n'
                         '"battery_stats.screen","battery_stats",2000,0.000000,'
                         '"counter_key=battery_stats.screen"\n'
                         '"battery_stats.wifi","battery_stats",3000,1.000000,'
                         '"counter_key=battery_stats.wifi"\n'
                         '"battery_stat","atrace_counter",4000,2.000000,"upid=1,name=battery_stat"\n')

    def test_systrace_battery_stats_counter(self):
        text = ('# tracer: nop\n'
                '  app-10    ( 10) [000] ....  1.000000: tracing_mark_write: '
                'C|10|battery_stats.audio|1\n')
        p = e.write_temp(self.dir, 'trace.systrace', text)
        self.assertEqual(track_rows(self.query, p), '"name","type","ts","value","dims"\n'
                         '"battery_stats.audio","battery_stats",1000000000,1.000000,'
                         '"counter_key=battery_stats.audio"\n')


class SystraceFreqLimitsTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_old_and_new_field_names(self):
        text = ('# tracer: nop\n'
                '  kworker-10    [000] ....  1.000000: cpu_frequency_limits: min=300 max=1800 '
                'cpu_id=1\n'
                '  kworker-10    [000] ....  2.000000: cpu_frequency_limits: min_freq=400 '
                'max_freq=1900 cpu_id=1\n'
                '  kworker-10    [000] ....  3.000000: cpu_frequency_limits: max=2000 cpu_id=2\n')
        p = e.write_temp(self.dir, 'trace.systrace', text)
        out = self.query("select t.name, c.ts, c.value from counter c "
                         "join track t on c.track_id = t.id order by c.ts, t.name", p)
        self.assertEqual(out, '"name","ts","value"\n'
                         '"Cpu 1 Max Freq Limit",1000000000,1800.000000\n'
                         '"Cpu 1 Min Freq Limit",1000000000,300.000000\n'
                         '"Cpu 1 Max Freq Limit",2000000000,1900.000000\n'
                         '"Cpu 1 Min Freq Limit",2000000000,400.000000\n'
                         '"Cpu 2 Max Freq Limit",3000000000,2000.000000\n')


def heap_event(ts, pid, number, buffer, length, total):
    """An ion_stat (335) or dma_heap_stat (351): buffer 1, len 2, total 3."""
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(
        number, pb_int(1, buffer) + pb_int(2, length) + pb_int(3, total)))


class HeapStatTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_heap_counters_and_buffer_slices(self):
        ION, DMA = 335, 351
        events = [heap_event(100, 1, ION, 7, 2048, 4096), heap_event(150, 1, DMA, 9, 4096, 4096),
                  heap_event(160, 2, DMA, 10, 1000, 5096), heap_event(200, 1, ION, 7, -2048, 2048),
                  heap_event(300, 2, DMA, 9, -4096, 1000), heap_event(400, 2, DMA, 11, 3000, 4000)]
        trace = pb_packet(pb_bytes(1, pb_int(1, 0) + b''.join(events)))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select t.id, t.name, t.type, (select group_concat(key || '=' || "
                         "display_value) from args a where a.arg_set_id = t.dimension_arg_set_id) "
                         "as dims from track t order by t.id", p)
        self.assertEqual(out, '"id","name","type","dims"\n'
                         '0,"mem.ion","ion","[NULL]"\n'
                         '1,"mem.ion_change","ion_change","utid=1"\n'
                         '2,"mem.ion_buffer","android_ion_allocations","track_compressor_idx=0"\n'
                         '3,"mem.dma_heap","android_dma_heap","[NULL]"\n'
                         '4,"mem.dma_heap_change","android_dma_heap_change","utid=1"\n'
                         '5,"mem.dma_buffer","android_dma_allocations","track_compressor_idx=0"\n'
                         '6,"mem.dma_heap_change","android_dma_heap_change","utid=2"\n'
                         '7,"mem.dma_buffer","android_dma_allocations","track_compressor_idx=1"\n')
        self.assertEqual(self.query("select ts, dur, name, track_id from slice", p),
                         '"ts","dur","name","track_id"\n100,100,"2 kB",2\n150,150,"4 kB",5\n'
                         '160,-1,"0 kB",7\n400,-1,"2 kB",5\n')
        self.assertEqual(self.query("select ts, track_id, value from counter "
                                    "where ts = 300 order by track_id", p),
                         '"ts","track_id","value"\n300,3,1000.000000\n300,6,-4096.000000\n')


if __name__ == '__main__':
    e.main()
