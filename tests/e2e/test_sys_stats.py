"""End-to-end: SysStats packets (import/proto/proto_sys_stats.c). Each kind
of polled counter gets Perfetto's track name, type, unit and dimension args;
a packet is read kind by kind in Perfetto's order; meminfo is in bytes;
buddyinfo chunk sizes use the file's SystemInfo page size wherever that
packet is; disk counters are signed changes since the previous sample; an
unknown psi resource ends the packet. Each expected answer is Perfetto's
trace_processor_shell's on the same trace."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

# group_concat leaves out NULL dimension values
TRACKS = ("select t.id, t.name, t.type, t.unit, "
          "(select group_concat(key || '=' || display_value, ' ') from args a "
          " where a.arg_set_id = t.dimension_arg_set_id) as dims, "
          "(select group_concat(cast(value as int), ' ') from counter c "
          " where c.track_id = t.id) as v from counter_track t")
STATS = "select name, value from stats where value > 0 and severity != 'info'"


def sys_stats(ts, *fields):
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(7, b''.join(fields)))


def keyed(number, key, value):
    """A MeminfoValue (number 1) or VmstatValue (number 2)."""
    return pb_bytes(number, pb_int(1, key) + pb_int(2, value))


def buddy(node, zone, *pages):
    return pb_bytes(12, pb_bytes(1, node) + pb_bytes(2, zone) +
                    b''.join(pb_int(3, p) for p in pages))


def disk(name=None, **counters):
    numbers = {'read_sectors': 2, 'read_time_ms': 3, 'write_sectors': 4}
    body = pb_bytes(1, name) if name is not None else b''
    body += b''.join(pb_int(numbers[k], v) for k, v in counters.items())
    return pb_bytes(13, body)


def psi(resource, total):
    return pb_bytes(14, pb_int(1, resource) + pb_int(2, total))


def thermal(temp, zone_type=None):
    body = pb_bytes(1, 'tz') + pb_int(2, temp)
    return pb_bytes(15, body + (pb_bytes(3, zone_type) if zone_type is not None else b''))


def system_info(ts, page_size):
    return pb_packet(pb_int(8, ts), pb_bytes(45, pb_int(6, page_size)))


class SysStatsTest(e.TempDirTest):
    def run_query(self, data, sql):
        return e.query(sql, e.write_temp(self.dir, 'trace.pb', data))

    def test_every_kind_in_perfettos_order_with_its_dimensions(self):
        cpu_times = pb_int(1, 2) + b''.join(pb_int(n, n * 10) for n in range(2, 10))
        data = sys_stats(
            1000, keyed(1, 1, 100), keyed(1, 3, 50), keyed(2, 49, 12), pb_bytes(3, cpu_times),
            pb_int(4, 42), pb_int(5, 43), pb_bytes(6, pb_int(1, 5) + pb_int(2, 6)),
            pb_int(7, 44), pb_bytes(8, pb_int(1, 2) + pb_int(2, 7)),
            pb_bytes(10, pb_bytes(1, 'ddr') + pb_int(2, 1555)), pb_int(11, 300000),
            pb_int(11, 0), buddy('0', 'Normal', 5, 6), psi(1, 1000), thermal(45, 'cpu-therm'),
            pb_bytes(16, pb_int(1, 1) + pb_bytes(2, pb_bytes(1, 'C1') + pb_int(2, 5))),
            pb_int(17, 300), pb_int(17, 400))
        self.assertEqual(
            self.run_query(data, TRACKS),
            '"id","name","type","unit","dims","v"\n'
            '0,"MemTotal","meminfo","bytes","meminfo_key=MemTotal","102400"\n'
            '1,"MemAvailable","meminfo","bytes","meminfo_key=MemAvailable","51200"\n'
            '2,"ddr Frequency","clock_frequency","[NULL]","linux_device=ddr","1555"\n'
            '3,"cpufreq","cpu_frequency","[NULL]","cpu=0","300000"\n'
            '4,"cpufreq","cpu_frequency","[NULL]","cpu=1","0"\n'
            '5,"pgfault","vmstat","[NULL]","vmstat_key=pgfault","12"\n'
            '6,"cpu.times.user_ns","cpustat","[NULL]","cpu=2 cpustat_key=user_ns","20"\n'
            '7,"cpu.times.user_nice_ns","cpustat","[NULL]","cpu=2 cpustat_key=user_nice_ns","30"\n'
            '8,"cpu.times.system_mode_ns","cpustat","[NULL]",'
            '"cpu=2 cpustat_key=system_mode_ns","40"\n'
            '9,"cpu.times.idle_ns","cpustat","[NULL]","cpu=2 cpustat_key=idle_ns","50"\n'
            '10,"cpu.times.io_wait_ns","cpustat","[NULL]","cpu=2 cpustat_key=io_wait_ns","60"\n'
            '11,"cpu.times.irq_ns","cpustat","[NULL]","cpu=2 cpustat_key=irq_ns","70"\n'
            '12,"cpu.times.softirq_ns","cpustat","[NULL]","cpu=2 cpustat_key=softirq_ns","80"\n'
            '13,"cpu.times.steal_ns","cpustat","[NULL]","cpu=2 cpustat_key=steal_ns","90"\n'
            '14,"num_irq (id: 5)","num_irq","[NULL]","irq=5","6"\n'
            '15,"num_softirq (id: 2)","num_softirq","[NULL]","irq=2","7"\n'
            '16,"num_forks","num_forks","[NULL]","[NULL]","42"\n'
            '17,"num_irq_total","num_irq_total","[NULL]","[NULL]","43"\n'
            '18,"num_softirq_total","num_softirq_total","[NULL]","[NULL]","44"\n'
            '19,"mem.buddyinfo[0][Normal][0 kB]","buddyinfo","[NULL]",'
            '"buddyinfo_node=0 buddyinfo_zone=Normal buddyinfo_chunk_size_kb=0","5 6"\n'
            '20,"psi.cpu.some","psi","[NULL]","psi_resource=cpu.some","1000"\n'
            '21,"cpu-therm","thermal_temperature_sys","C","thermal_zone=cpu-therm","45"\n'
            '22,"cpuidle1.C1","cpu_idle_state","us","cpu=1 state=C1","5"\n'
            '23,"gpufreq","gpu_frequency","kHz","ugpu=0 gpu=0","300 400"\n')

    def test_every_meminfo_and_vmstat_key_has_its_proc_name(self):
        data = sys_stats(1000, keyed(1, 0, 1), keyed(1, 38, 1), keyed(1, 39, 1),
                         keyed(2, 0, 1), keyed(2, 188, 1), keyed(2, 189, 1), keyed(2, 500, 1))
        self.assertEqual(self.run_query(data, 'select name, type from counter_track'),
                         '"name","type"\n"MemUnspecified","meminfo"\n'
                         '"ION_heap_pool","meminfo"\n"VmstatUnspecified","vmstat"\n'
                         '"workingset_restore_file","vmstat"\n')
        self.assertEqual(self.run_query(data, STATS),
                         '"name","value"\n"meminfo_unknown_keys",1\n"vmstat_unknown_keys",2\n')

    def test_an_unknown_psi_resource_ends_the_packet(self):
        data = sys_stats(1000, pb_int(17, 300), thermal(40, 'skin'), psi(6, 5), psi(7, 6),
                         psi(2, 7), keyed(1, 1, 1))
        self.assertEqual(self.run_query(data, 'select name from counter_track'),
                         '"name"\n"MemTotal"\n"psi.mem.full"\n')
        self.assertEqual(self.run_query(data, STATS),
                         '"name","value"\n"psi_unknown_resource",1\n')

    def test_buddyinfo_chunks_take_the_page_size_of_a_later_system_info(self):
        data = sys_stats(1000, buddy('0', 'DMA', 1, 2, 3)) + system_info(3000, 16384)
        self.assertEqual(self.run_query(data, 'select name from counter_track'),
                         '"name"\n"mem.buddyinfo[0][DMA][16 kB]"\n'
                         '"mem.buddyinfo[0][DMA][32 kB]"\n"mem.buddyinfo[0][DMA][64 kB]"\n')
        # a SystemInfo without a page size means 4096 bytes
        data = system_info(10, 0) + sys_stats(1000, buddy('1', 'Normal', 1))
        self.assertEqual(self.run_query(data, 'select name from counter_track'),
                         '"name"\n"mem.buddyinfo[1][Normal][4 kB]"\n')

    def test_disk_counters_are_signed_changes_since_the_previous_sample(self):
        data = (sys_stats(1000, disk('sda', read_sectors=2048, write_sectors=10)) +
                sys_stats(2000, disk('sda', read_sectors=1024, read_time_ms=500,
                                     write_sectors=4106)) +
                sys_stats(3000, disk(read_sectors=5)) + sys_stats(4000, disk(read_sectors=9)))
        self.assertEqual(
            self.run_query(data, "select t.name, t.unit, (select group_concat(key || '=' || "
                                 "display_value, ' ') from args a where a.arg_set_id = "
                                 "t.dimension_arg_set_id) as dims, c.ts, c.value from counter c "
                                 "join counter_track t on t.id = c.track_id "
                                 "where t.name glob '*read*' or t.name glob '*write_amount'"),
            '"name","unit","dims","ts","value"\n'
            '"diskstat.[sda].read_amount","MB","device_name=sda counter_name=read_amount",'
            '2000,-0.500000\n'
            '"diskstat.[sda].read_throughput","MB/s",'
            '"device_name=sda counter_name=read_throughput",2000,-1.000000\n'
            '"diskstat.[sda].write_amount","MB","device_name=sda counter_name=write_amount",'
            '2000,2.000000\n'
            '"diskstat.[].read_amount","MB","counter_name=read_amount",'
            '4000,0.001953\n'
            '"diskstat.[].read_throughput","MB/s",'
            '"counter_name=read_throughput",4000,0.000000\n'
            '"diskstat.[].write_amount","MB","counter_name=write_amount",'
            '4000,0.000000\n')

    def test_an_absent_string_is_a_null_dimension_that_equals_an_empty_one(self):
        data = sys_stats(1000, thermal(40), thermal(41, ''), thermal(42),
                         pb_bytes(16, pb_bytes(2, pb_int(2, 5)) + pb_bytes(2, b'')),
                         pb_bytes(3, pb_int(2, 1)))
        self.assertEqual(
            self.run_query(data, TRACKS),
            '"id","name","type","unit","dims","v"\n'
            '0,"","thermal_temperature_sys","C","[NULL]","40 41 42"\n'
            '1,"cpuidle0.","cpu_idle_state","us","cpu=0 state=","5 0"\n')
        # a cpu_stat without a cpu is counted, not read
        self.assertEqual(self.run_query(data, STATS),
                         '"name","value"\n"invalid_cpu_times",1\n')


if __name__ == '__main__':
    e.main()
