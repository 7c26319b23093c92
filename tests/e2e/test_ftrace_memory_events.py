"""End-to-end: ion_heap_grow / ion_heap_shrink, ion_stat, dma_heap_stat and
mm_event_record counters, as Perfetto's ftrace parser makes them."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

TRACE = '''
packet { process_tree { processes { pid: 1000 ppid: 1 cmdline: "app" } threads { tid: 1001 tgid: 1000 } } }
packet { ftrace_events { cpu: 0
 event { timestamp: 100 pid: 1001 mm_event_record { avg_lat: 10 count: 2 max_lat: 20 type: 0 } }
 event { timestamp: 110 pid: 4321 mm_event_record { avg_lat: 11 count: 3 max_lat: 21 type: 1 } }
 event { timestamp: 120 pid: 4321 mm_event_record { avg_lat: 11 count: 3 max_lat: 21 type: 8 } }
 event { timestamp: 130 pid: 1001 ion_heap_grow { len: 4096 total_allocated: 8192 } }
 event { timestamp: 140 pid: 1001 ion_heap_shrink { heap_name: "sys" len: 1024 total_allocated: 8192 } }
 event { timestamp: 150 pid: 1001 ion_heap_grow { heap_name: "sys" len: 2048 total_allocated: 7168 } }
} }
'''

COUNTERS = ("select t.name, t.type, (select group_concat(key || '=' || display_value) from args a "
            "where a.arg_set_id = t.dimension_arg_set_id) as dims, c.ts, c.value, "
            "(select group_concat(key || '=' || display_value) from args a "
            "where a.arg_set_id = c.arg_set_id) as args "
            "from track t join counter c on c.track_id = t.id order by c.ts, t.name")


class FtraceMemoryEventsTest(e.TempDirTest):
    def test_ion_heap_and_mm_event_counters(self):
        p = e.textproto_trace(self.dir, 'trace', TRACE)
        self.assertEqual(e.query(COUNTERS, p), (
            '"name","type","dims","ts","value","args"\n'
            '"mem.mm.min_flt.avg_lat","mm_event","upid=2,mm_event_type=min_flt,'
            'mm_event_metric=avg_lat",100,10.000000,"utid=3"\n'
            '"mem.mm.min_flt.count","mm_event","upid=2,mm_event_type=min_flt,'
            'mm_event_metric=count",100,2.000000,"utid=3"\n'
            '"mem.mm.min_flt.max_lat","mm_event","upid=2,mm_event_type=min_flt,'
            'mm_event_metric=max_lat",100,20.000000,"utid=3"\n'
            '"mem.mm.maj_flt.avg_lat","mm_event_thread_fallback","utid=4,mm_event_type=maj_flt,'
            'mm_event_metric=avg_lat",110,11.000000,"utid=4"\n'
            '"mem.mm.maj_flt.count","mm_event_thread_fallback","utid=4,mm_event_type=maj_flt,'
            'mm_event_metric=count",110,3.000000,"utid=4"\n'
            '"mem.mm.maj_flt.max_lat","mm_event_thread_fallback","utid=4,mm_event_type=maj_flt,'
            'mm_event_metric=max_lat",110,21.000000,"utid=4"\n'
            '"mem.ion.unknown","ion","heap_name=unknown",130,12288.000000,"[NULL]"\n'
            '"mem.ion_change.unknown","ion_change","heap_name=unknown,utid=3",130,'
            '4096.000000,"[NULL]"\n'
            '"mem.ion.sys","ion","heap_name=sys",140,7168.000000,"[NULL]"\n'
            '"mem.ion_change.sys","ion_change","heap_name=sys,utid=3",140,-1024.000000,"[NULL]"\n'
            '"mem.ion.sys","ion","heap_name=sys",150,9216.000000,"[NULL]"\n'
            '"mem.ion_change.sys","ion_change","heap_name=sys,utid=3",150,2048.000000,"[NULL]"\n'))
        self.assertEqual(e.query("select value from stats where name = 'mm_unknown_type'", p),
                         '"value"\n1\n')

    def test_ion_and_dma_heap_stats(self):
        # ion_stat's tracks have a NULL heap_name dimension; the dma heap
        # change counter carries the buffer's inode, made after its track
        p = e.textproto_trace(self.dir, 'trace', '''
packet { ftrace_events { cpu: 1
 event { timestamp: 1234 pid: 4321 dma_heap_stat { inode: 101010 len: 100 total_allocated: 200 } }
 event { timestamp: 1300 pid: 4321 ion_stat { buffer_id: 5 len: 10 total_allocated: 210 } }
} }''')
        self.assertEqual(e.query("select t.id, t.name, t.type, t.dimension_arg_set_id as dims, "
                                 "c.arg_set_id from track t left join counter c "
                                 "on c.track_id = t.id order by t.id", p),
                         '"id","name","type","dims","arg_set_id"\n'
                         '0,"mem.dma_heap","android_dma_heap","[NULL]","[NULL]"\n'
                         '1,"mem.dma_heap_change","android_dma_heap_change",3,4\n'
                         '2,"mem.dma_buffer","android_dma_allocations",5,"[NULL]"\n'
                         '3,"mem.ion","ion",9,"[NULL]"\n'
                         '4,"mem.ion_change","ion_change",10,"[NULL]"\n'
                         '5,"mem.ion_buffer","android_ion_allocations",5,"[NULL]"\n')
        self.assertEqual(e.query("select arg_set_id, key, display_value, value_type from args "
                                 "where arg_set_id in (3, 4, 9, 10)", p),
                         '"arg_set_id","key","display_value","value_type"\n'
                         '3,"utid","1","int"\n4,"inode","101010","uint"\n'
                         '9,"heap_name","[NULL]","string"\n10,"heap_name","[NULL]","string"\n'
                         '10,"utid","1","int"\n')

    def test_oom_score_adj_tracks_are_chosen_when_loading_ends(self):
        # each value is a row at once with its thread as the uint arg utid;
        # its track (the process's, else the thread's fallback) and that
        # track's dimensions come after every event's args
        def oom(ts, pid, adj):
            return pb_bytes(2, pb_int(1, ts) + pb_int(2, 11) +
                            pb_bytes(326, pb_bytes(1, 'c') + pb_int(2, adj) + pb_int(3, pid)))
        tree = pb_packet(pb_bytes(2, pb_bytes(1, pb_int(1, 10) + pb_int(2, 1)) +
                                  pb_bytes(2, pb_int(1, 11) + pb_int(3, 10))))
        data = tree + pb_packet(pb_bytes(1, pb_int(1, 0) + oom(1000, 20, 5) + oom(1100, 11, -3) +
                                         oom(1200, 20, 6)), pb_int(10, 1))
        p = e.write_temp(self.dir, 'oom.pb', data)
        self.assertEqual(e.query("select t.id, t.name, t.type, t.dimension_arg_set_id as dims, "
                                 "c.ts, c.value, c.arg_set_id, a.value_type from counter c join "
                                 "track t on c.track_id = t.id join args a on a.arg_set_id = "
                                 "c.arg_set_id order by c.ts", p),
                         '"id","name","type","dims","ts","value","arg_set_id","value_type"\n'
                         '0,"oom_score_adj","oom_score_adj_thread_fallback",11,1000,5.000000,'
                         '3,"uint"\n'
                         '1,"oom_score_adj","oom_score_adj",12,1100,-3.000000,7,"uint"\n'
                         '0,"oom_score_adj","oom_score_adj_thread_fallback",11,1200,6.000000,'
                         '3,"uint"\n')


if __name__ == '__main__':
    e.main()
