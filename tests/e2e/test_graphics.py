"""End-to-end: graphics — DRM vblank / GPU scheduler / dma_fence slices
(model/kdrm.c), GPU counters, GPU memory and frequency (proto_gpu.c,
model/gpu.c). Traces are generated here; every expected answer is worked
out by hand from the rules."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_double, pb_int, pb_packet

# FtraceEvent field numbers.
GPU_FREQUENCY, GPU_MEM_TOTAL, SCHED_PROCESS_FREE = 332, 340, 240
VBLANK, VBLANK_DELIVERED = 409, 410
SCHED_JOB, RUN_JOB, SCHED_PROCESS_JOB = 411, 412, 413
FENCE_INIT, FENCE_EMIT, FENCE_SIGNALED, FENCE_WAIT_START, FENCE_WAIT_END = range(414, 419)
JOB_DONE, JOB_QUEUE, JOB_RUN = 592, 593, 594
# TracePacket fields.
GPU_COUNTER_EVENT, GPU_MEM_TOTAL_EVENT, GPU_FREQ_PACKET = 52, 71, 129


def ftrace_event(ts, pid, number, *fields):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(number, b''.join(fields)))


def bundle(*events):
    return pb_packet(pb_bytes(1, pb_int(1, 0) + b''.join(events)), pb_int(10, 1))


def fence(ts, number, timeline, context, seqno):
    return ftrace_event(ts, 1, number, pb_int(1, context), pb_bytes(2, 'drv'),
                        pb_int(3, seqno), pb_bytes(4, timeline))


def spec(counter_id, name, desc=None, num=(), den=(), groups=(), direction=None):
    body = pb_int(1, counter_id) + pb_bytes(2, name)
    if desc is not None:
        body += pb_bytes(3, desc)
    body += b''.join(pb_int(7, u) for u in num) + b''.join(pb_int(8, u) for u in den)
    body += b''.join(pb_int(10, g) for g in groups)
    if direction is not None:
        body += pb_int(11, direction)
    return pb_bytes(1, body)


def group(group_id, name, desc, *counter_ids):
    return pb_bytes(6, pb_int(1, group_id) + pb_bytes(2, name) + pb_bytes(3, desc) +
                    b''.join(pb_int(4, c) for c in counter_ids))


def counter_event(ts, *fields, gpu=0):
    packet = [pb_bytes(GPU_COUNTER_EVENT, b''.join(fields) + pb_int(3, gpu)), pb_int(10, 1)]
    if ts is not None:
        packet.insert(0, pb_int(8, ts))
    return pb_packet(*packet)


def sample(counter_id, value):
    if isinstance(value, float):
        return pb_bytes(2, pb_int(1, counter_id) + pb_double(3, value))
    return pb_bytes(2, pb_int(1, counter_id) + pb_int(2, value))



def packet_payload_offsets(path):
    """The file offset of each top-level packet's payload (after its tag
    and length), as import logs give them."""
    with open(path, 'rb') as f:
        data = f.read()
    offsets, i = [], 0
    while i < len(data):
        _, i = e.read_varint(data, i)
        length, i = e.read_varint(data, i)
        offsets.append(i)
        i += length
    return offsets


class GraphicsTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'gfx.pb', b''.join(packets))

    def slices(self, path):
        return e.query(
            "select t.name as track, t.type, s.ts, s.dur, s.name, "
            "(select group_concat(key || '=' || display_value, ' ') from args a "
            "where a.arg_set_id = s.arg_set_id) as args "
            "from slice s join track t on s.track_id = t.id order by s.ts, s.id", path)

    def test_vblank_slices_on_a_gpu_track(self):
        path = self.trace(bundle(
            ftrace_event(100, 1, VBLANK, pb_int(1, 2), pb_int(3, 7)),
            ftrace_event(150, 1, VBLANK_DELIVERED, pb_int(1, 2), pb_int(3, 7))))
        self.assertEqual(self.slices(path),
                         '"track","type","ts","dur","name","args"\n'
                         '"vblank-2","drm_vblank",100,0,"signal","vblank seqno=7"\n'
                         '"vblank-2","drm_vblank",150,0,"deliver","vblank seqno=7"\n')
        self.assertEqual(e.query("select name, scope, extract_arg(dimension_arg_set_id, "
                                 "'drm_crtc') as crtc from gpu_track", path),
                         '"name","scope","crtc"\n"vblank-2","drm_vblank",2\n')

    def test_sched_jobs_run_one_at_a_time_with_flows(self):
        def job(ts, number, job_id, fence_id):
            return ftrace_event(ts, 5, number, pb_int(2, fence_id), pb_int(4, job_id),
                                pb_bytes(6, 'gfx'))
        path = self.trace(bundle(
            job(100, SCHED_JOB, 1, 11), job(110, SCHED_JOB, 2, 12),
            job(120, RUN_JOB, 1, 11), job(130, RUN_JOB, 2, 12),
            ftrace_event(200, 0, SCHED_PROCESS_JOB, pb_int(1, 11)),
            ftrace_event(250, 0, SCHED_PROCESS_JOB, pb_int(1, 12)),
            ftrace_event(260, 0, SCHED_PROCESS_JOB, pb_int(1, 99))))  # unknown fence
        # Job 2 runs once job 1's fence is done, not when it was run.
        self.assertEqual(self.slices(path),
                         '"track","type","ts","dur","name","args"\n'
                         '"[NULL]","thread_execution",100,0,"drm_sched_job_queue",'
                         '"gpu sched ring=gfx gpu sched job=1"\n'
                         '"[NULL]","thread_execution",110,0,"drm_sched_job_queue",'
                         '"gpu sched ring=gfx gpu sched job=2"\n'
                         '"sched-gfx","drm_sched_ring",120,80,"job","gpu sched job=1"\n'
                         '"sched-gfx","drm_sched_ring",200,50,"job","gpu sched job=2"\n')
        self.assertEqual(e.query('select a.ts as out_ts, b.ts as in_ts, f.trace_id from flow f '
                                 'join slice a on f.slice_out = a.id join slice b '
                                 'on f.slice_in = b.id order by a.ts', path),
                         '"out_ts","in_ts","trace_id"\n100,120,"[NULL]"\n110,200,"[NULL]"\n')

    def test_sched_jobs_of_linux_6_17_are_named_by_their_fence(self):
        def job(ts, number):
            return ftrace_event(ts, 5, number, pb_bytes(1, 'ring'), pb_int(5, 40),
                                pb_int(6, 3))
        path = self.trace(bundle(
            job(100, JOB_QUEUE), job(120, JOB_RUN),
            ftrace_event(150, 0, JOB_DONE, pb_int(1, 40), pb_int(2, 3))))
        self.assertEqual(self.slices(path),
                         '"track","type","ts","dur","name","args"\n'
                         '"[NULL]","thread_execution",100,0,"drm_sched_job_queue",'
                         '"gpu sched ring=ring fence context=40 fence seqno=3"\n'
                         '"sched-ring","drm_sched_ring",120,30,"job",'
                         '"fence context=40 fence seqno=3"\n')
        self.assertEqual(e.query('select count(*) as n from flow', path), '"n"\n1\n')

    def test_fence_timelines_switch_from_init_to_emit(self):
        path = self.trace(bundle(
            fence(100, FENCE_INIT, 'tl', 4, 1),
            fence(110, FENCE_INIT, 'tl', 4, 2),
            fence(120, FENCE_SIGNALED, 'tl', 4, 1),
            fence(130, FENCE_EMIT, 'tl', 4, 3),   # drops 2, ends its slice
            fence(140, FENCE_INIT, 'tl', 4, 4),   # ignored from now on
            fence(150, FENCE_SIGNALED, 'tl', 4, 2),  # below the first pending: ignored
            fence(160, FENCE_SIGNALED, 'tl', 4, 3),
            fence(170, FENCE_INIT, 'unbound', 5, 1),
            ftrace_event(180, 9, FENCE_WAIT_START, pb_int(1, 4), pb_int(3, 8)),
            ftrace_event(190, 9, FENCE_WAIT_END)))
        self.assertEqual(self.slices(path),
                         '"track","type","ts","dur","name","args"\n'
                         '"fence-tl-4","drm_fence",100,20,"fence","fence seqno=1"\n'
                         '"fence-tl-4","drm_fence",120,10,"fence","fence seqno=2"\n'
                         '"fence-tl-4","drm_fence",130,30,"fence","fence seqno=3"\n'
                         '"[NULL]","thread_execution",180,10,"dma_fence_wait",'
                         '"fence context=4 fence seqno=8"\n')
        self.assertEqual(e.query("select extract_arg(dimension_arg_set_id, 'name') as n, "
                                 "extract_arg(dimension_arg_set_id, 'context') as c "
                                 "from gpu_track", path), '"n","c"\n"tl",4\n')
        # an unsigned dimension is stored as an int, as Perfetto's dimensions are
        self.assertEqual(e.query("select distinct value_type from args a join gpu_track t "
                                 "on a.arg_set_id = t.dimension_arg_set_id "
                                 "where key = 'context'", path), '"value_type"\n"int"\n')

    def test_counter_descriptors_and_power_rails_make_tracks_in_file_order(self):
        # both are read at tokenize time: the descriptor first in the file
        # (later in time) makes the first track, as in the reference
        rails = pb_packet(pb_int(8, 50), pb_bytes(40, pb_bytes(
            1, pb_int(1, 0) + pb_bytes(2, 'RAIL_A') + pb_bytes(3, 'sys'))))
        energy = pb_packet(pb_int(8, 110), pb_bytes(40, pb_bytes(
            2, pb_int(1, 0) + pb_int(2, 0) + pb_int(3, 5))))
        path = self.trace(counter_event(100, pb_bytes(1, spec(1, 'gpu_busy'))), rails,
                          counter_event(120, sample(1, 7)), energy)
        self.assertEqual(e.query('select id, name from track', path),
                         '"id","name"\n0,"gpu_busy"\n1,"power.RAIL_A_uws"\n')
        path = self.trace(rails, counter_event(100, pb_bytes(1, spec(1, 'gpu_busy'))),
                          counter_event(120, sample(1, 7)), energy)
        self.assertEqual(e.query('select id, name from track', path),
                         '"id","name"\n0,"power.RAIL_A_uws"\n1,"gpu_busy"\n')

    def test_gpu_counters_are_backwards_looking_unless_forwards(self):
        path = self.trace(
            counter_event(1, pb_bytes(1, spec(1, 'back', 'b', num=[25], den=[22]) +
                                      spec(2, 'fwd', num=[7], den=[0], direction=2))),
            counter_event(10, sample(1, 5), sample(2, 6)),
            counter_event(20, sample(1, 7.5), sample(2, 8), sample(3, 1)),  # 3: undeclared
            counter_event(30, sample(1, 9), gpu=0))
        self.assertEqual(e.query('select t.name, t.unit, t.description, t.gpu_id, c.ts, c.value '
                                 'from counter c join gpu_counter_track t '
                                 'on c.track_id = t.id order by t.name, c.ts', path),
                         '"name","unit","description","gpu_id","ts","value"\n'
                         '"back","Vertex/s","b",0,10,7.500000\n'
                         '"back","Vertex/s","b",0,20,9.000000\n'
                         '"back","Vertex/s","b",0,30,0.000000\n'
                         # no description field: a NULL string, as in the reference
                         '"fwd","B","[NULL]",0,10,6.000000\n'
                         '"fwd","B","[NULL]",0,20,8.000000\n')

    def test_gpu_counter_specs_groups_and_bad_specs(self):
        path = self.trace(
            counter_event(1, pb_bytes(1, spec(1, 'a', groups=[6]) + spec(2, 'b') +
                                      spec(3, 'c', groups=[5, 6]) +
                                      pb_bytes(1, pb_bytes(2, 'no id')) +
                                      group(5, 'Mem', 'memory', 2) + group(6, 'Core', 'core'))),
            counter_event(2, pb_bytes(1, spec(1, 'again'))),  # counter 1 twice
            counter_event(None, sample(1, 3)),  # no timestamp: dropped
            counter_event(None, pb_bytes(1, spec(9, 'late')), gpu=1))
        self.assertEqual(e.query('select g.group_id, g.name, g.description, t.name as track '
                                 'from gpu_counter_group g join gpu_counter_track t '
                                 'on g.track_id = t.id order by g.group_id, t.name', path),
                         '"group_id","name","description","track"\n'
                         '0,"[NULL]","[NULL]","b"\n'
                         '0,"[NULL]","[NULL]","late"\n'
                         '5,"Mem","memory","b"\n'
                         '5,"Mem","memory","c"\n'
                         '6,"Core","core","a"\n'
                         '6,"Core","core","c"\n')
        self.assertEqual(e.query("select name, value from stats where name in "
                                 "('gpu_counters_invalid_spec', 'gpu_counters_missing_timestamp')"
                                 " order by name", path),
                         '"name","value"\n"gpu_counters_invalid_spec",2\n'
                         '"gpu_counters_missing_timestamp",1\n')
        # each logged at its packet's payload, a bad spec with an id with
        # its id and name
        payloads = packet_payload_offsets(path)
        self.assertEqual(e.query("select l.byte_offset, l.name, group_concat(a.key || '=' || "
                                 "a.display_value) as args from _trace_import_logs l left join "
                                 "args a using (arg_set_id) group by l.id order by l.id", path),
                         '"byte_offset","name","args"\n'
                         '%d,"gpu_counters_invalid_spec","[NULL]"\n'
                         '%d,"gpu_counters_invalid_spec","counter_id=1,counter_name=again"\n'
                         '%d,"gpu_counters_missing_timestamp","[NULL]"\n'
                         % (payloads[0], payloads[1], payloads[2]))
        # A descriptor without a timestamp still declares its counters; the
        # gpus named get rows.
        self.assertEqual(e.query('select name, unit from gpu_counter_track order by id', path),
                         '"name","unit"\n"a","[NULL]"\n"b","[NULL]"\n"c","[NULL]"\n'
                         '"late","[NULL]"\n')
        self.assertEqual(e.query("select extract_arg(dimension_arg_set_id, 'name') as n "
                                 "from track where name = 'late'", path),
                         '"n"\n"late"\n')
        self.assertEqual(e.query('select gpu, machine_id from gpu order by gpu', path),
                         '"gpu","machine_id"\n0,0\n1,0\n')

    def test_gpu_memory_and_frequency(self):
        def mem(ts, pid, size):
            return ftrace_event(ts, 0, GPU_MEM_TOTAL, pb_int(1, 0), pb_int(2, pid),
                                pb_int(3, size))
        path = self.trace(
            pb_packet(pb_int(8, 1), pb_bytes(GPU_MEM_TOTAL_EVENT, pb_int(1, 0) + pb_int(2, 7) +
                                             pb_int(3, 100))),
            pb_packet(pb_int(8, 2), pb_bytes(GPU_MEM_TOTAL_EVENT, pb_int(1, 0) + pb_int(3, 900))),
            pb_packet(pb_int(8, 3), pb_bytes(GPU_FREQ_PACKET, pb_int(1, 1) + pb_int(2, 500))),
            bundle(mem(10, 7, 200),
                   mem(11, 8, 300),  # thread 8 unknown: dropped
                   ftrace_event(12, 7, SCHED_PROCESS_FREE, pb_bytes(1, 'app'), pb_int(2, 7)),
                   mem(13, 7, 0),  # after the process ended: dropped
                   ftrace_event(14, 0, GPU_FREQUENCY, pb_int(1, 1), pb_int(2, 600))))
        self.assertEqual(e.query("select t.name, t.type, t.unit, extract_arg(t.dimension_arg_set_id,"
                                 " 'gpu') as gpu, p.pid, c.ts, c.value from counter c "
                                 "join counter_track t on c.track_id = t.id "
                                 "left join process_counter_track pt on pt.id = t.id "
                                 "left join process p using (upid) order by c.ts", path),
                         '"name","type","unit","gpu","pid","ts","value"\n'
                         '"GPU Memory","process_gpu_memory","bytes",0,7,1,100.000000\n'
                         '"GPU Memory","gpu_memory","bytes",0,"[NULL]",2,900.000000\n'
                         '"gpufreq","gpu_frequency","kHz",1,"[NULL]",3,500.000000\n'
                         '"GPU Memory","process_gpu_memory","bytes",0,7,10,200.000000\n'
                         '"gpufreq","gpu_frequency","kHz",1,"[NULL]",14,600.000000\n')


    def test_render_stages_tracks_names_and_args(self):
        def stage(ts, event_id, queue, stage_id, dur=5, *extra):
            return pb_packet(pb_int(8, ts), pb_bytes(53, pb_int(1, event_id) + pb_int(2, dur) +
                                                     pb_int(3, queue) + pb_int(4, stage_id) +
                                                     pb_int(5, 42) + b''.join(extra)))

        def specs(kind, *descs):
            return pb_packet(pb_bytes(53, pb_bytes(7, b''.join(
                pb_bytes(kind, pb_bytes(1, n) + (pb_bytes(2, d) if d else b'')) for n, d in descs))))
        path = self.trace(
            pb_packet(pb_int(8, 0), pb_bytes(53, pb_int(1, 0) + pb_int(2, 5) + pb_int(3, 1) +
                                             pb_int(4, 1))),  # before the specs
            specs(3, ('s0', None), ('s1', 'stage one')),
            specs(2, ('q0', 'queue zero'), ('q1', None)),
            stage(10, 1, 1, 1), stage(12, 2, 1, 0),  # overlaps: a second q1 track
            stage(20, 3, 7, 9, 5, pb_int(15, 1 << 63), pb_int(15, 5),
                  pb_bytes(6, pb_bytes(1, 'k')), pb_int(16, 3)),
            pb_packet(pb_int(8, 30), pb_bytes(65, pb_bytes(2, pb_int(1, 4) + pb_int(2, 9) +
                                                             pb_int(3, 10) + pb_int(5, 70) +
                                                             pb_int(5, 71) + pb_int(6, 2)))))
        self.assertEqual(e.query(
            'select g.name as track, g.description, s.ts, s.name, s.hw_queue_id, s.context_id, '
            "s.render_subpasses, extract_arg(s.arg_set_id, 'description') as d, "
            "extract_arg(s.arg_set_id, 'k') as k, extract_arg(s.arg_set_id, 'correlation_id') "
            'as c, s.command_buffer, s.submission_id from gpu_slice s join gpu_track g '
            'on s.track_id = g.id order by s.ts', path),
            '"track","description","ts","name","hw_queue_id","context_id","render_subpasses",'
            '"d","k","c","command_buffer","submission_id"\n'
            '"q1","[NULL]",0,"render stage(1)",1,0,"[NULL]","[NULL]","[NULL]","[NULL]",0,0\n'
            '"q1","[NULL]",10,"s1",1,42,"[NULL]","stage one","[NULL]","[NULL]",0,0\n'
            '"q1","[NULL]",12,"s0",1,42,"[NULL]","[NULL]","[NULL]","[NULL]",0,0\n'
            '"Unknown GPU Queue 7","[NULL]",20,"render stage(9)",7,42,"63,64,66","[NULL]",'
            '"[NULL]","rp:#3",0,0\n'
            '"Vulkan Events","[NULL]",30,"vkQueueSubmit","[NULL]","[NULL]","[NULL]","[NULL]",'
            '"[NULL]","[NULL]",70,2\n')
        self.assertEqual(e.query("select count(*) as n from gpu_track where name = 'q1'", path),
                         '"n"\n3\n')
        # unnamed handles, subpasses and queues are NULL args, and the first
        # track of a queue has track_compressor_idx 0
        self.assertEqual(e.query("select a.key, a.value_type, a.display_value from slice s "
                                 "join args a using (arg_set_id) where s.ts = 10 and "
                                 "a.key glob '*_name' or a.key = 'render_subpasses' and s.ts = 10",
                                 path),
                         '"key","value_type","display_value"\n'
                         '"render_target_name","string","[NULL]"\n'
                         '"render_pass_name","string","[NULL]"\n'
                         '"render_subpasses","string","[NULL]"\n'
                         '"command_buffer_name","string","[NULL]"\n')
        self.assertEqual(e.query("select t.id, a.key, a.value_type, a.display_value from gpu_track t "
                                 "join args a on a.arg_set_id = t.dimension_arg_set_id "
                                 "where a.key in ('hwqueue_id', 'hwqueue_name', "
                                 "'track_compressor_idx') and t.name glob 'Unknown*'", path),
                         '"id","key","value_type","display_value"\n'
                         '3,"hwqueue_id","int","7"\n3,"hwqueue_name","string","[NULL]"\n'
                         '3,"track_compressor_idx","int","0"\n')


    def test_ftrace_gpu_mem_total_of_a_thread_is_its_process_counter(self):
        # pid 101 is a thread of process 100 (upid 1): the counter is that process's,
        # though process 101 is made too; an unknown pid's event is dropped
        # after its gpu gets a row
        tree = pb_packet(pb_bytes(2, pb_bytes(1, pb_int(1, 100) + pb_int(2, 1)) +
                                  pb_bytes(2, pb_int(1, 101) + pb_int(3, 100))))

        def mem(ts, gpu, pid, size):
            return ftrace_event(ts, 7, GPU_MEM_TOTAL, pb_int(1, gpu), pb_int(2, pid),
                                pb_int(3, size))
        path = self.trace(tree, bundle(mem(1000, 0, 101, 10), mem(1100, 1, 100, 20),
                                       mem(1200, 0, 0, 30), mem(1300, 2, 555, 40)))
        self.assertEqual(e.query("select t.type, (select group_concat(key || '=' || "
                                 "display_value, ' ') from args a where a.arg_set_id = "
                                 "t.dimension_arg_set_id) as dims, c.ts, c.value from counter c "
                                 "join track t on t.id = c.track_id order by c.ts", path),
                         '"type","dims","ts","value"\n'
                         '"process_gpu_memory","ugpu=0 gpu=0 upid=1",1000,10.000000\n'
                         '"process_gpu_memory","ugpu=1 gpu=1 upid=1",1100,20.000000\n'
                         '"gpu_memory","ugpu=0 gpu=0",1200,30.000000\n')
        self.assertEqual(e.query("select group_concat(gpu) as gpus, (select count(*) from "
                                 "process where pid = 101) as p101 from gpu", path),
                         '"gpus","p101"\n"0,1,2",1\n')

    def test_interned_counter_descriptors_are_per_sequence(self):
        def interned(seq, iid, gpu, *specs):
            desc = pb_bytes(47, pb_int(1, iid) + pb_bytes(2, b''.join(specs)) + pb_int(3, gpu))
            return pb_packet(pb_int(10, seq), pb_int(13, 1), pb_bytes(12, desc))

        def event(seq, ts, iid, *samples):
            return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_int(13, 2),
                             pb_bytes(GPU_COUNTER_EVENT, pb_int(4, iid) + b''.join(samples)))

        # counter 1 is "A" (gpu 0) on sequence 1 and "B" (gpu 3) on sequence 2
        path = self.trace(
            interned(1, 1, 0, spec(1, 'A', 'a')), interned(2, 1, 3, spec(1, 'B', 'b')),
            event(1, 10, 1, sample(1, 100)), event(2, 10, 1, sample(1, 200)),
            event(1, 15, 9, sample(1, 7)),  # no descriptor 9: dropped
            event(1, 20, 1, sample(1, 150)), event(2, 20, 1, sample(1, 250)))
        self.assertEqual(e.query('select t.name, t.gpu_id, c.ts, c.value from counter c '
                                 'join gpu_counter_track t on c.track_id = t.id '
                                 'order by t.name, c.ts', path),
                         '"name","gpu_id","ts","value"\n'
                         '"A",0,10,150.000000\n"A",0,20,0.000000\n'
                         '"B",3,10,250.000000\n"B",3,20,0.000000\n')


    def test_gpu_info_describes_gpus_by_position(self):
        def gpu(*fields):
            return pb_bytes(1, b''.join(fields))

        def kv(key, value):
            return pb_bytes(6, (pb_bytes(1, key) if key else b'') + pb_bytes(2, value))

        path = self.trace(
            counter_event(5, pb_bytes(1, spec(1, 'C')), gpu=1),  # gpu 1 exists first
            pb_packet(pb_int(8, 6), pb_bytes(128,
                      gpu(pb_bytes(1, 'A'), pb_bytes(5, b'\x01\xff'), kv('driver', '1.2'),
                          kv(None, 'no key')) +
                      gpu(pb_bytes(2, 'V'), pb_bytes(7, '0000:02:00.0')))),
            # a later description overwrites only the fields it gives
            pb_packet(pb_int(8, 7), pb_bytes(128, gpu(pb_bytes(1, 'B')))))
        self.assertEqual(e.query(
            'select gpu, name, vendor, uuid, pci_bdf, '
            "extract_arg(arg_set_id, 'driver') as driver from gpu order by id", path),
            '"gpu","name","vendor","uuid","pci_bdf","driver"\n'
            '1,"[NULL]","V","[NULL]","0000:02:00.0","[NULL]"\n'
            '0,"B","[NULL]","01ff","[NULL]","1.2"\n')


    def test_render_stages_linked_by_event_wait_ids(self):
        def stage(ts, event_id, *waits):
            body = pb_int(1, event_id) + pb_int(2, 5) + pb_int(3, 0) + pb_int(4, 0)
            body += b''.join(pb_int(18, w) for w in waits)
            return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(53, body))

        path = self.trace(
            stage(100, 1, 7),     # waits on an event not seen yet
            stage(110, 1),        # a second slice of event 1
            stage(120, 2, 1, 9, 1),  # each event-1 slice, per wait named in turn
            stage(130, 7, 2))     # event 7 arrives: to the earlier waiter first
        self.assertEqual(e.query(
            'select so.ts as out_ts, si.ts as in_ts from flow f '
            'join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in '
            'order by f.id', path),
            '"out_ts","in_ts"\n100,120\n110,120\n100,120\n110,120\n130,100\n120,130\n')


if __name__ == '__main__':
    e.main()
