"""End-to-end: process memory counters (model/kcounter.c,
proto_process_stats.c). rss_stat values are rows at once, with their
thread as the utid arg, and take their track when the events are parsed:
the thread's process's as it is then, or the thread's own fallback track.
process_memory tracks carry Perfetto's description of their key; the other
ProcessStats tracks have their key as a dimension. Each expected answer is
Perfetto's trace_processor_shell's on the same trace."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

RSS_STAT, CPU_FREQUENCY = 313, 11
ANON = ('Anonymous resident memory (RssAnon): Physical memory for heap and stack '
        'allocations not backed by files. High values indicate memory allocations from '
        'malloc/new. Most important for app memory usage and detecting memory leaks. See '
        'https://perfetto.dev/docs/data-sources/memory-counters'
        '#per-process-memory-events-ftrace for information.')
TRACKS = ("select t.id, t.name, t.type, "
          "(select group_concat(key || '=' || display_value) from args a "
          " where a.arg_set_id = t.dimension_arg_set_id) as dims, "
          "(select display_value from args a where a.arg_set_id = t.source_arg_set_id "
          " and key = 'description') as description from track t")


def process_tree(ts, *threads):
    """Process 10 ("app", child of 1) and its threads (tid, name)."""
    body = pb_bytes(1, pb_int(1, 10) + pb_int(2, 1) + pb_bytes(3, 'app'))
    body += b''.join(pb_bytes(2, pb_int(1, tid) + pb_bytes(2, name) + pb_int(3, 10))
                     for tid, name in threads)
    return pb_packet(pb_int(8, ts), pb_bytes(2, body))


def event(ts, pid, number, body):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(number, body))


def bundle(*events):
    return pb_packet(pb_bytes(1, pb_int(1, 0) + b''.join(events)), pb_int(10, 1))


def rss(ts, tid, member, size):
    body = pb_int(1, member) + pb_int(2, size) + pb_int(3, 1) + pb_int(4, 7)
    return event(ts, tid, RSS_STAT, body)


def cpufreq(ts, cpu):
    return event(ts, 0, CPU_FREQUENCY, pb_int(1, 100) + pb_int(2, cpu))


class RssStatTest(e.TempDirTest):
    def run_query(self, data, sql):
        return e.query(sql, e.write_temp(self.dir, 'trace.pb', data))

    def test_values_are_rows_at_once_and_tracks_come_at_the_end(self):
        data = process_tree(1, (11, 't')) + bundle(rss(10, 11, 1, 4096), cpufreq(20, 0),
                                                   rss(30, 11, 0, 8192), cpufreq(40, 1))
        self.assertEqual(self.run_query(data, 'select * from counter'),
                         '"id","ts","track_id","value","arg_set_id"\n'
                         '0,10,2,4096.000000,4\n1,20,0,100.000000,"[NULL]"\n'
                         '2,30,3,8192.000000,4\n3,40,1,100.000000,"[NULL]"\n')
        self.assertEqual(self.run_query(data, "select key, value_type, display_value "
                                              "from args where arg_set_id = 4"),
                         '"key","value_type","display_value"\n"utid","uint","3"\n')
        self.assertEqual(self.run_query(data, TRACKS),
                         '"id","name","type","dims","description"\n'
                         '0,"cpufreq","cpu_frequency","cpu=0","[NULL]"\n'
                         '1,"cpufreq","cpu_frequency","cpu=1","[NULL]"\n'
                         '2,"mem.rss.anon","process_memory","upid=2,process_memory_key=rss.anon",'
                         '"%s"\n'
                         '3,"mem.rss.file","process_memory","upid=2,process_memory_key=rss.file",'
                         '"File-backed resident memory (RssFile): Physical memory used for '
                         'memory-mapped files (e.g., code, libraries, mmap\'d files). Useful for '
                         'understanding shared library overhead. Can be reclaimed under memory '
                         'pressure. See https://perfetto.dev/docs/data-sources/memory-counters'
                         '#per-process-memory-events-ftrace for information."\n' % ANON)

    def test_the_threads_process_is_the_one_it_has_at_the_end(self):
        # the process tree naming the thread's process comes after the value
        data = bundle(rss(10, 11, 1, 4096), cpufreq(20, 0)) + process_tree(50, (11, 't'))
        self.assertEqual(self.run_query(data, TRACKS),
                         '"id","name","type","dims","description"\n'
                         '0,"cpufreq","cpu_frequency","cpu=0","[NULL]"\n'
                         '1,"mem.rss.anon","process_memory","upid=2,process_memory_key=rss.anon",'
                         '"%s"\n' % ANON)

    def test_a_thread_without_process_has_its_fallback_track(self):
        data = bundle(rss(10, 55, 1, 4096), cpufreq(20, 0))
        self.assertEqual(self.run_query(data, TRACKS),
                         '"id","name","type","dims","description"\n'
                         '0,"cpufreq","cpu_frequency","cpu=0","[NULL]"\n'
                         '1,"mem.rss.anon","process_memory_thread_fallback",'
                         '"utid=1,process_memory_key=rss.anon","[NULL]"\n')

    def test_members_past_four_are_unknown_memory(self):
        members = [0, 1, 2, 3, 4, 5, 6, 100, -1, 2 ** 31]
        data = process_tree(1, (11, 't')) + bundle(
            *[rss(10 + i, 11, m, 100 + i) for i, m in enumerate(members)])
        out = self.run_query(data, 'select c.ts, t.name from counter c join track t '
                                   'on c.track_id = t.id order by c.ts')
        self.assertEqual(out, '"ts","name"\n10,"mem.rss.file"\n11,"mem.rss.anon"\n'
                              '12,"mem.swap"\n13,"mem.rss.shmem"\n14,"mem.unreclaimable"\n' +
                         ''.join('%d,"mem.unknown"\n' % ts for ts in range(15, 20)))
        self.assertEqual(self.run_query(data, "select description from (%s) "
                                              "where name = 'mem.unknown'" % TRACKS),
                         '"description"\n"Unknown memory type: Memory category not recognized '
                         'by the tracer. May indicate new kernel memory types or parsing '
                         'errors. Should be investigated if non-zero."\n')
        self.assertEqual(self.run_query(data, "select count(*) from stats where "
                                              "name = 'rss_stat_unknown_keys' and value > 0"),
                         '"count(*)"\n0\n')

    def test_tracks_are_made_before_the_open_slices_args(self):
        descriptor = pb_packet(pb_int(8, 0), pb_int(10, 5), pb_bytes(
            60, pb_int(1, 77) + pb_bytes(4, pb_int(1, 10) + pb_int(2, 11))))
        begin = pb_packet(pb_int(8, 5), pb_int(10, 5), pb_bytes(
            11, pb_int(9, 1) + pb_int(11, 77) + pb_bytes(23, 'open') +
            pb_bytes(4, pb_bytes(10, 'k') + pb_int(4, 3))))
        data = (process_tree(1, (11, 't')) + descriptor + begin +
                bundle(rss(10, 11, 1, 4096), cpufreq(20, 0)))
        self.assertEqual(self.run_query(data, 'select id, dimension_arg_set_id, '
                                              'source_arg_set_id from track'),
                         '"id","dimension_arg_set_id","source_arg_set_id"\n'
                         '0,0,"[NULL]"\n1,8,"[NULL]"\n2,9,11\n')
        self.assertEqual(self.run_query(data, 'select arg_set_id from slice'),
                         '"arg_set_id"\n12\n')


class ProcessStatsTest(e.TempDirTest):
    def test_tracks_have_their_key_and_memory_ones_a_description(self):
        fields = [2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24]
        proc = pb_int(1, 10) + b''.join(pb_int(n, 100 + n) for n in fields)
        data = process_tree(10) + pb_packet(pb_int(8, 20), pb_bytes(9, pb_bytes(1, proc)))
        path = e.write_temp(self.dir, 'trace.pb', data)
        out = e.query("select t.name, t.type, "
                      "(select group_concat(key || '=' || display_value) from args a "
                      " where a.arg_set_id = t.dimension_arg_set_id) as dims, "
                      "t.source_arg_set_id is not null as described, c.value "
                      "from track t join counter c on c.track_id = t.id order by t.id", path)
        self.assertEqual(out, '"name","type","dims","described","value"\n'
                         '"chrome.private_footprint_kb","chrome_process_stats",'
                         '"upid=2,key=private_footprint_kb",0,115712.000000\n'
                         '"chrome.peak_resident_set_kb","chrome_process_stats",'
                         '"upid=2,key=peak_resident_set_kb",0,116736.000000\n'
                         '"mem.virt","process_memory","upid=2,process_memory_key=virt",1,'
                         '104448.000000\n'
                         '"mem.rss","process_memory","upid=2,process_memory_key=rss",1,'
                         '105472.000000\n'
                         '"mem.rss.anon","process_memory","upid=2,process_memory_key=rss.anon",'
                         '1,106496.000000\n'
                         '"mem.rss.file","process_memory","upid=2,process_memory_key=rss.file",'
                         '1,107520.000000\n'
                         '"mem.rss.shmem","process_memory",'
                         '"upid=2,process_memory_key=rss.shmem",1,108544.000000\n'
                         '"mem.swap","process_memory","upid=2,process_memory_key=swap",1,'
                         '109568.000000\n'
                         '"mem.locked","process_memory","upid=2,process_memory_key=locked",1,'
                         '110592.000000\n'
                         '"mem.rss.watermark","process_memory",'
                         '"upid=2,process_memory_key=rss.watermark",1,111616.000000\n'
                         '"oom_score_adj","oom_score_adj","upid=2",0,110.000000\n'
                         '"mem.smaps.rss","smaps","upid=2,smaps_key=rss",0,118784.000000\n'
                         '"mem.smaps.pss","smaps","upid=2,smaps_key=pss",0,119808.000000\n'
                         '"mem.smaps.pss.anon","smaps","upid=2,smaps_key=pss.anon",0,'
                         '120832.000000\n'
                         '"mem.smaps.pss.file","smaps","upid=2,smaps_key=pss.file",0,'
                         '121856.000000\n'
                         '"mem.smaps.pss.smem","smaps","upid=2,smaps_key=pss.smem",0,'
                         '122880.000000\n'
                         '"runtime.user_ns","proc_stat_runtime",'
                         '"upid=2,proc_stat_runtime_key=user_ns",0,121.000000\n'
                         '"runtime.kernel_ns","proc_stat_runtime",'
                         '"upid=2,proc_stat_runtime_key=kernel_ns",0,122.000000\n'
                         '"mem.smaps.swap.pss","smaps","upid=2,smaps_key=swap.pss",0,'
                         '125952.000000\n'
                         '"mem.dmabuf_rss","process_memory",'
                         '"upid=2,process_memory_key=dmabuf_rss",1,126976.000000\n')
        # only chrome_peak_resident_set_kb is an unknown counter
        self.assertEqual(e.query("select value from stats where "
                                 "name = 'proc_stat_unknown_counters'", path),
                         '"value"\n1\n')


class ProcessStatsThreadsAndFdsTest(e.TempDirTest):
    """ProcessStats threads join their process (its main thread made first)
    and fds are filedescriptor rows at the packet's time."""

    def test_threads_and_fds(self):
        def fd(n, path=None):
            return pb_bytes(15, pb_int(1, n) + (pb_bytes(2, path) if path else b''))

        def thread(tid):
            return pb_bytes(11, pb_int(1, tid))
        p1 = pb_int(1, 10) + fd(3, '/dev/null') + fd(4, 'socket:[1]') + thread(12) + thread(10)
        p2 = pb_int(1, 20) + fd(3, '/a') + fd(5)
        p3 = thread(33) + pb_int(1, 30)  # the pid may come after the threads
        data = pb_packet(pb_int(8, 1000), pb_int(10, 1),
                         pb_bytes(9, pb_bytes(1, p1) + pb_bytes(1, p2) + pb_bytes(1, p3)))
        path = e.write_temp(self.dir, 'trace.pb', data)
        self.assertEqual(e.query('select * from filedescriptor', path),
                         '"id","ufd","fd","ts","upid","path"\n'
                         '0,0,3,1000,1,"/dev/null"\n1,0,4,1000,1,"socket:[1]"\n'
                         '2,0,3,1000,2,"/a"\n3,0,5,1000,2,"[NULL]"\n')
        self.assertEqual(e.query('select utid, tid, upid from thread', path),
                         '"utid","tid","upid"\n0,0,0\n1,10,1\n2,12,1\n3,20,2\n4,30,3\n'
                         '5,33,3\n')


class ProcessTreeNamesTest(e.TempDirTest):
    def test_a_single_cmdline_element_with_spaces_names_up_to_the_first(self):
        # a process that rewrote its cmdline with spaces has one element:
        # its name ends at the first space, its cmdline is whole; with more
        # elements the first is the name as it is
        def proc(pid, *cmd):
            return pb_bytes(1, pb_int(1, pid) + pb_int(2, 1) + b''.join(pb_bytes(3, c) for c in cmd))
        data = pb_packet(pb_int(8, 1000), pb_bytes(2, proc(101, '/system/bin/sh -c foo') +
                                                   proc(102, 'a b', 'c')))
        path = e.write_temp(self.dir, 'tree.pb', data)
        self.assertEqual(e.query('select pid, name, cmdline from process where pid > 100', path),
                         '"pid","name","cmdline"\n101,"/system/bin/sh","/system/bin/sh -c foo"\n'
                         '102,"a b","a b c"\n')


if __name__ == '__main__':
    e.main()
