"""End-to-end: android.dvfs, android.cpu.cluster_type and
android.cpu.cpu_per_uid on small traces whose answers Perfetto's trace
processor gives too."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

CLOCK = '          <idle>-0     (-----) [000] d..2   %s: clock_set_rate: name=%s state=%d cpu_id=0\n'


def cpu_info(cpus):
    """A CpuInfo packet of cpus given as (frequency, capacity)."""
    return ('packet { trusted_packet_sequence_id: 1 timestamp: 1 cpu_info { %s } }\n' %
            ' '.join('cpus { processor: "p" frequencies: %d capacity: %d }' % c for c in cpus))


def switch(ts, cpu, prev, nxt):
    return ('packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: %d event { '
            'timestamp: %d pid: %d sched_switch { prev_comm: "a" prev_pid: %d prev_state: 0 '
            'next_comm: "b" next_pid: %d } } } }\n' % (cpu, ts, prev, prev, nxt))


SCHED = (switch(1000, 0, 0, 10) + switch(1500, 1, 0, 11) + switch(2000, 0, 10, 0) +
         switch(2500, 1, 11, 12) + switch(2600, 2, 0, 13) + switch(3000, 1, 12, 0) +
         switch(4000, 2, 13, 0))


def cpu_per_uid(ts, uids, times, clusters=None):
    """A CpuPerUidData packet (uids and times packed)."""
    body = pb_int(1, clusters) if clusters is not None else b''
    body += pb_bytes(2, b''.join(e.varint(u) for u in uids))
    body += pb_bytes(3, b''.join(e.varint(t) for t in times))
    return pb_packet(pb_int(8, ts), pb_bytes(119, body))


def package(name, uid, version):
    return pb_bytes(1, pb_bytes(1, name) + pb_int(2, uid) + pb_int(5, version))


class AndroidCpuTest(e.TempDirTest):
    def test_dvfs_counters_stats_and_residency(self):
        text = '# tracer: nop\n#\n' + ''.join(CLOCK % c for c in [
            ('100.000000', 'domain@0', 1000), ('100.500000', 'domain@1', 500),
            ('101.000000', 'domain@0', 2000), ('101.000000', 'other', 2000),
            ('102.000000', 'domain@0', 1000), ('102.500000', 'bus_throughput', 7),
            ('104.000000', 'domain@0', 3000)])
        path = e.write_temp(self.dir, 'dvfs.txt', text)
        # only the listed clocks; the last sample lasts to the trace's end
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.dvfs; select * from android_dvfs_counters', path),
            '"name","ts","value","dur"\n'
            '"domain@0 Frequency",100000000000,1000.000000,1000000000\n'
            '"domain@1 Frequency",100500000000,500.000000,3500000000\n'
            '"domain@0 Frequency",101000000000,2000.000000,1000000000\n'
            '"domain@0 Frequency",102000000000,1000.000000,2000000000\n'
            '"bus_throughput Frequency",102500000000,7.000000,1500000000\n'
            '"domain@0 Frequency",104000000000,3000.000000,0\n')
        # samples of no duration (the last at the trace's end) are left out
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.dvfs; select * from android_dvfs_counter_stats',
            path),
            '"name","max","min","dur","wgt_avg"\n'
            '"bus_throughput Frequency",7.000000,7.000000,0,7.000000\n'
            '"domain@0 Frequency",2000.000000,1000.000000,2000000000,1250.000000\n'
            '"domain@1 Frequency",500.000000,500.000000,0,500.000000\n')
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.dvfs; '
            'select * from android_dvfs_counter_residency', path),
            '"name","value","dur","pct"\n'
            '"bus_throughput Frequency",7.000000,1500000000,100.000000\n'
            '"domain@0 Frequency",1000.000000,3000000000,75.000000\n'
            '"domain@0 Frequency",2000.000000,1000000000,25.000000\n'
            '"domain@1 Frequency",500.000000,3500000000,100.000000\n')

    def test_cluster_types_by_cluster_count(self):
        query = ('INCLUDE PERFETTO MODULE android.cpu.cluster_type; '
                 'select * from android_cpu_cluster_mapping')
        two = e.textproto_trace(self.dir, 'two.pb', cpu_info(
            [(100, 200), (100, 200), (900, 1024), (900, 1024)]) + SCHED)
        self.assertEqual(e.query(query, two),
                         '"ucpu","cpu","cluster_type"\n'
                         '0,0,"little"\n1,1,"little"\n2,2,"big"\n3,3,"big"\n')
        three = e.textproto_trace(self.dir, 'three.pb', cpu_info(
            [(100, 100), (500, 500), (900, 900)]))
        self.assertEqual(e.query(query, three),
                         '"ucpu","cpu","cluster_type"\n'
                         '0,0,"little"\n1,1,"medium"\n2,2,"big"\n')
        # five clusters have no names
        five = e.textproto_trace(self.dir, 'five.pb', cpu_info([(i, i) for i in range(1, 6)]))
        self.assertEqual(e.query(query + ' where cluster_type is not null', five),
                         '"ucpu","cpu","cluster_type"\n')
        # tasks running on the little cpus (0 and 1); a switch between two
        # tasks keeps the count
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.cpu.cluster_type; '
            "select * from _active_cpu_count_for_cluster_type('little')", two),
            '"ts","active_cpu_count"\n1000,1\n1500,2\n2000,1\n2500,1\n3000,0\n')

    def test_cpu_per_uid_tracks_and_deltas(self):
        data = (pb_packet(pb_int(8, 5), pb_bytes(47, package(b'com.a', 10010, 1) +
                                                     package(b'com.b', 10010, 2) +
                                                     package(b'sys', 1000, 1))) +
                cpu_per_uid(1000000000, [0, 1000, 10010, 1090001], [100] * 8, clusters=2) +
                cpu_per_uid(2000000000, [0, 1000, 10010], [5, 0, 7, 1, 0, 0]) +
                cpu_per_uid(3000000000, [0, 1000, 10010], [5, 0, 0, 0, 30, 3]) +
                cpu_per_uid(4000000000, [10010], [0, 0]) +
                cpu_per_uid(5000000000, [10010], [10, 0]))
        path = e.write_temp(self.dir, 'cpu.pb', data)
        # a system uid has no package; a sample without a successor has no row
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.cpu.cpu_per_uid; '
            'select uid, cluster, total_cpu_millis, package_name, ts, dur, diff_ms, cpu_ratio '
            'from android_cpu_per_uid_track t join android_cpu_per_uid_counter c '
            'on c.track_id = t.id order by uid, cluster, ts', path),
            '"uid","cluster","total_cpu_millis","package_name","ts","dur","diff_ms","cpu_ratio"\n'
            '0,0,10,"[NULL]",1000000000,1000000000,5.000000,0.005000\n'
            '0,0,10,"[NULL]",2000000000,1000000000,5.000000,0.005000\n'
            '1000,0,7,"[NULL]",1000000000,1000000000,7.000000,0.007000\n'
            '1000,1,1,"[NULL]",1000000000,1000000000,1.000000,0.001000\n'
            '10010,0,40,"com.a",1000000000,1000000000,0.000000,0.000000\n'
            '10010,0,40,"com.a",2000000000,1000000000,30.000000,0.030000\n'
            '10010,0,40,"com.a",3000000000,1000000000,0.000000,0.000000\n'
            '10010,0,40,"com.a",4000000000,1000000000,10.000000,0.010000\n'
            '10010,1,3,"com.a",1000000000,1000000000,0.000000,0.000000\n'
            '10010,1,3,"com.a",2000000000,1000000000,3.000000,0.003000\n')


if __name__ == '__main__':
    e.main()
