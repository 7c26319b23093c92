"""End-to-end: Perfetto's rules for the network, UFS, f2fs, cros_ec, CMA and
V4L2 ftrace events (model/knet.h, model/kdev.h, model/kv4l2.h). Every
expected answer is worked out by hand from the rules."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

I, S = pb_int, pb_bytes


def ftrace_event(ts, pid, number, *fields):
    """One FtraceEvent: timestamp, pid and the event message `number`."""
    return S(2, I(1, ts) + I(2, pid) + S(number, b''.join(fields)))


def bundle(cpu, *events):
    """A TracePacket holding an FtraceEventBundle of `cpu`."""
    return pb_packet(S(1, I(1, cpu) + b''.join(events)))


def kernel(release):
    """A SystemInfo packet naming the kernel release."""
    return pb_packet(S(45, S(1, S(1, 'Linux') + S(3, release))))


NETIF_RECEIVE_SKB, NET_DEV_XMIT, INET_SOCK_SET_STATE, TCP_RETRANSMIT_SKB = 360, 361, 362, 363
CROS_EC_SENSORHUB_DATA, NAPI_GRO_ENTRY, NAPI_GRO_EXIT, KFREE_SKB = 364, 365, 366, 367
UFSHCD_COMMAND, UFSHCD_CLK_GATING, F2FS_IOSTAT, F2FS_IOSTAT_LATENCY = 406, 407, 419, 420
V4L2_QBUF, V4L2_DQBUF, VB2_BUF_QUEUE, VB2_BUF_DONE, VB2_QBUF, VB2_DQBUF = range(422, 428)
CMA_START, CMA_INFO, CMA_FINISH, CMA_MIGRATE = 465, 466, 576, 577

SLICES = ('select s.ts, s.dur, s.category, s.name, t.name as track, t.type '
          'from slice s join track t on s.track_id = t.id order by s.ts, s.id')
COUNTERS = ('select t.name, c.ts, c.value from counter c join counter_track t '
            'on c.track_id = t.id order by c.ts, t.name')


def args_of(what, where):
    """The args of the rows of table `what` matching `where`, key=value."""
    return ("select group_concat(a.key || '=' || coalesce(a.display_value, 'NULL'), ';') "
            "as args from %s x join args a using (arg_set_id) where %s "
            "group by x.id order by x.ts" % (what, where))


class FtraceDevicesTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'trace.pb', b''.join(packets))

    def test_tcp_socket_states_and_retransmits(self):
        def sock(ts, pid, skaddr, new, old=0, protocol=6, family=2):
            return ftrace_event(ts, pid, INET_SOCK_SET_STATE, I(2, 80), I(3, family),
                                I(4, new), I(5, old), I(6, protocol), I(8, skaddr),
                                I(9, 4000))
        path = self.trace(bundle(
            0,
            sock(100, 7, 0xA, 2),                 # SYN_SENT: stream 1
            sock(200, 7, 0xB, 10, family=10),     # IPv6 LISTEN: stream 2
            sock(300, 7, 0xA, 1, old=2),          # ESTABLISHED ends SYN_SENT
            sock(310, 7, 0xC, 2, protocol=17),    # UDP: ignored
            sock(320, 7, 0xC, 2, family=3),       # not IP: ignored
            sock(330, 7, 0xC, 13),                # TCP_MAX_STATES: ignored
            sock(400, 8, 0xA, 0),                 # state 0 ends ESTABLISHED
            ftrace_event(500, 8, TCP_RETRANSMIT_SKB, I(2, 443), I(6, 5555))))
        self.assertEqual(
            e.query(SLICES, path),
            '"ts","dur","category","name","track","type"\n'
            '100,200,"tcp_state","TCP_SYN_SENT(pid=7)","TCP stream#1","net_socket_set_state"\n'
            '200,-1,"tcp_state","TCP_LISTEN","TCP stream#2","net_socket_set_state"\n'
            '300,100,"tcp_state","TCP_ESTABLISHED(sport=4000,dport=80)","TCP stream#1",'
            '"net_socket_set_state"\n'
            '400,-1,"tcp_state","TCP_UNKNOWN","TCP stream#1","net_socket_set_state"\n'
            '500,0,"tcp_event","sport=5555,dport=443","TCP Retransmit Skb",'
            '"net_tcp_retransmit_skb"\n')
        self.assertEqual(e.query("select name, extract_arg(dimension_arg_set_id, "
                                 "'tcp_stream_idx') as idx from track where name glob 'TCP s*' "
                                 "order by name", path),
                         '"name","idx"\n"TCP stream#1",1\n"TCP stream#2",2\n')

    def test_napi_gro_slices_and_device_counters(self):
        path = self.trace(bundle(
            3,
            ftrace_event(5, 1, NAPI_GRO_EXIT, I(1, 9)),   # no slice open: nothing
            ftrace_event(10, 1, NAPI_GRO_ENTRY, I(7, 1500), S(10, 'wlan0')),
            ftrace_event(30, 1, NAPI_GRO_EXIT, I(1, 2)),
            ftrace_event(40, 1, NETIF_RECEIVE_SKB, I(1, 1000), S(2, 'wlan0')),
            ftrace_event(50, 1, NETIF_RECEIVE_SKB, I(1, 1100), S(2, 'wlan0')),
            ftrace_event(60, 1, NET_DEV_XMIT, I(1, 4096), S(2, 'rmnet'), I(3, 0)),
            ftrace_event(70, 1, NET_DEV_XMIT, I(1, 4096), S(2, 'rmnet'), I(3, -1)),
            ftrace_event(80, 1, KFREE_SKB, I(2, 0x800)),
            ftrace_event(90, 1, KFREE_SKB, I(2, 0x806)),  # ARP: not counted
            ftrace_event(95, 1, KFREE_SKB, I(2, 0x86DD))))
        self.assertEqual(e.query(SLICES, path),
                         '"ts","dur","category","name","track","type"\n'
                         '10,20,"napi_gro","wlan0","Napi Gro Cpu 3","cpu_napi_gro"\n')
        self.assertEqual(e.query(args_of('slice', '1'), path), '"args"\n"len=1500;ret=2"\n')
        # whole KiB of the running byte total; rc != 0 is not transmitted
        self.assertEqual(e.query(COUNTERS, path),
                         '"name","ts","value"\n'
                         '"wlan0 Received KB",40,0.000000\n'
                         '"wlan0 Received KB",50,2.000000\n'
                         '"rmnet Transmitted KB",60,4.000000\n'
                         '"Kfree Skb IP Prot",80,1.000000\n'
                         '"Kfree Skb IP Prot",95,2.000000\n')
        self.assertEqual(e.query(args_of('counter', 'ts in (50, 95)'), path),
                         '"args"\n"cpu=3;len=1100"\n"protocol=IPV6"\n')
        self.assertEqual(e.query("select type, extract_arg(dimension_arg_set_id, "
                                 "'network_interface') as dev from counter_track "
                                 "where name glob '* KB' order by type", path),
                         '"type","dev"\n"net_receive","wlan0"\n"net_transmit","rmnet"\n')

    def test_ufs_commands_and_clock_gating(self):
        def ufs(ts, doorbell, opcode, tag, str_t, gid=0):
            return ftrace_event(ts, 1, UFSHCD_COMMAND, I(2, doorbell), I(5, opcode),
                                I(7, tag), I(9, gid), I(10, str_t))
        path = self.trace(bundle(
            0,
            ufs(100, 0, 40, 1, 0),            # READ (10), no doorbell: 1
            ufs(110, 0b1011, 42, 2, 0, 0x16),  # 3 bits set
            ufs(120, 0, 40, 1, 1),            # completion: 0, ends tag 1
            ufs(130, 0, 77, 3, 0),            # unknown opcode
            ufs(140, 0, 77, 3, 2),            # neither send nor completion: 1, ends
            ftrace_event(150, 1, UFSHCD_CLK_GATING, I(2, 1)),
            ftrace_event(160, 1, UFSHCD_CLK_GATING, I(2, 3)),
            ftrace_event(170, 1, UFSHCD_CLK_GATING, I(2, 9))))
        self.assertEqual(e.query(SLICES, path),
                         '"ts","dur","category","name","track","type"\n'
                         '100,20,"[NULL]","READ (10)","io.ufs.command.tag[001]",'
                         '"ufs_command_tag"\n'
                         '110,-1,"[NULL]","WRITE (10) (GID=0x16)","io.ufs.command.tag[002]",'
                         '"ufs_command_tag"\n'
                         '130,10,"[NULL]","UNDEFINED","io.ufs.command.tag[003]",'
                         '"ufs_command_tag"\n')
        self.assertEqual(e.query(COUNTERS, path),
                         '"name","ts","value"\n'
                         '"io.ufs.command.count",100,1.000000\n'
                         '"io.ufs.command.count",110,3.000000\n'
                         '"io.ufs.command.count",120,0.000000\n'
                         '"io.ufs.command.count",130,1.000000\n'
                         '"io.ufs.command.count",140,1.000000\n'
                         '"io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)",150,3.000000\n'
                         '"io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)",160,2.000000\n'
                         '"io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)",170,0.000000\n')
        self.assertEqual(e.query("select extract_arg(dimension_arg_set_id, 'ufs_tag') as tag "
                                 "from track where type = 'ufs_command_tag' order by tag", path),
                         '"tag"\n1\n2\n3\n')

    def test_f2fs_iostat_counters(self):
        dev = (254 << 8) | 32 | (1 << 20)  # bits above 15 are not the device
        path = self.trace(bundle(
            0,
            ftrace_event(100, 1, F2FS_IOSTAT_LATENCY, I(1, 7), I(3, 9), I(10, dev), I(28, 5)),
            ftrace_event(200, 1, F2FS_IOSTAT, I(8, 11), I(9, dev), I(15, 4))))
        out = e.query("select name, ts, value from counter join counter_track t "
                      "on track_id = t.id where value > 0 order by ts, name", path)
        self.assertEqual(out,
                         '"name","ts","value"\n'
                         '"f2fs_iostat_latency.[254:32].read_data_avg",100,7.000000\n'
                         '"f2fs_iostat_latency.[254:32].read_data_peak",100,9.000000\n'
                         '"f2fs_iostat_latency.[254:32].write_sync_node_peak",100,5.000000\n'
                         '"f2fs_iostat.[254:32].other_fs_discard",200,4.000000\n'
                         '"f2fs_iostat.[254:32].write_app_total",200,11.000000\n')
        self.assertEqual(e.query("select count(*) as n from counter_track group by type "
                                 "order by type", path), '"n"\n22\n27\n')
        self.assertEqual(e.query("select type, extract_arg(dimension_arg_set_id, "
                                 "'linux_device') as d, extract_arg(dimension_arg_set_id, "
                                 "'counter_key') as k from counter_track "
                                 "where name glob '*read_data_avg'", path),
                         '"type","d","k"\n"f2fs_iostat_latency","254:32","read_data_avg"\n')

    def test_cros_ec_sensor_counter(self):
        path = self.trace(bundle(0, ftrace_event(
            1000, 1, CROS_EC_SENSORHUB_DATA, I(1, 900), I(2, 600), I(5, 2), I(6, 550))))
        self.assertEqual(e.query(COUNTERS, path),
                         '"name","ts","value"\n"cros_ec.cros_ec_sensorhub_data.2",1000,300.000000\n')
        self.assertEqual(e.query(args_of('counter', '1'), path),
                         '"args"\n"ec_num=2;ec_delta=-50;sample_ts=600"\n')

    def cma_slices(self, release):
        events = bundle(
            0,
            ftrace_event(90, 10, CMA_MIGRATE, I(3, 9), I(4, 9), I(5, 9)),  # before start
            ftrace_event(100, 10, CMA_START, I(2, 8), S(3, 'c')),
            ftrace_event(150, 11, CMA_MIGRATE, I(3, 1), I(4, 2), I(5, 3)),  # other thread
            ftrace_event(160, 10, CMA_MIGRATE, I(3, 4), I(4, 5), I(5, 6)),
            ftrace_event(170, 10, CMA_MIGRATE, I(3, 7), I(4, 8), I(5, 9)),  # the last one
            ftrace_event(200, 10, CMA_FINISH, S(1, 'c'), I(2, 5), I(4, 8)),
            ftrace_event(300, 12, CMA_START, I(2, 8), S(3, 'e')),
            ftrace_event(310, 12, CMA_INFO, I(2, 8), S(6, 'e'), I(7, 1), I(10, 70)))
        path = self.trace(kernel(release) if release else b'', events)
        return e.query('select ts, dur from slice order by ts', path) + \
            e.query(args_of('slice', 'dur > 0'), path)

    def test_cma_slices_follow_the_kernel_release(self):
        self.assertEqual(self.cma_slices(None), '"ts","dur"\n"args"\n')
        self.assertEqual(self.cma_slices('5.4.0'), '"ts","dur"\n"args"\n')
        self.assertEqual(self.cma_slices('5.15.3'),
                         '"ts","dur"\n100,-1\n300,10\n"args"\n'
                         '"cma_name=e;cma_pfn=70;cma_req_pages=8;cma_nr_migrated=0;'
                         'cma_nr_reclaimed=0;cma_nr_mapped=1;cma_nr_isolate_fail=0;'
                         'cma_nr_migrate_fail=0;cma_nr_test_fail=0"\n')
        self.assertEqual(self.cma_slices('6.1.0'),
                         '"ts","dur"\n100,100\n300,-1\n"args"\n'
                         '"cma_name=c;cma_pfn=5;cma_req_pages=8;cma_nr_migrated=7;'
                         'cma_nr_reclaimed=8;cma_nr_mapped=9"\n')

    def test_cma_counts_are_those_since_the_start(self):
        path = self.trace(kernel('6.6.1'), bundle(
            0,
            ftrace_event(100, 10, CMA_START, I(2, 8), S(3, 'c')),
            ftrace_event(150, 10, CMA_MIGRATE, I(3, 1), I(4, 2), I(5, 3)),
            ftrace_event(200, 10, CMA_FINISH, S(1, 'c'), I(2, 5), I(4, 8)),
            ftrace_event(250, 10, CMA_MIGRATE, I(3, 4), I(4, 5), I(5, 6)),  # between
            ftrace_event(300, 10, CMA_START, I(2, 8), S(3, 'c')),
            ftrace_event(400, 10, CMA_FINISH, S(1, 'c'), I(2, 5), I(4, 8))))
        self.assertEqual(e.query("select ts, extract_arg(arg_set_id, 'cma_nr_migrated') as m, "
                                 "extract_arg(arg_set_id, 'cma_nr_mapped') as p from slice "
                                 "order by ts", path),
                         '"ts","m","p"\n100,1,3\n300,0,0\n')

    def test_v4l2_buffers_and_flows(self):
        def v4l2(ts, pid, number, index, flags=0, tc_flags=0, btype=9):
            return ftrace_event(ts, pid, number, I(3, flags), I(4, index), I(5, 1), I(6, 4),
                                I(7, tc_flags), I(18, btype))
        path = self.trace(bundle(
            0,
            v4l2(100, 20, V4L2_QBUF, 3, flags=0x4002, tc_flags=0xF),
            v4l2(110, 20, V4L2_QBUF, 3, tc_flags=0x4),  # same buffer: the first stays
            ftrace_event(120, 21, VB2_BUF_QUEUE, I(1, 1), I(3, 1), I(4, 4)),
            v4l2(130, 21, V4L2_DQBUF, 3, btype=200),    # another type: no flow
            v4l2(140, 21, V4L2_DQBUF, 3),
            v4l2(150, 21, V4L2_DQBUF, 3),               # already dequeued
            ftrace_event(160, 21, VB2_DQBUF, I(3, 1), I(4, 4))))
        self.assertEqual(e.query('select ts, dur, category, name from slice order by ts', path),
                         '"ts","dur","category","name"\n'
                         '100,0,"Video 4 Linux 2","VIDIOC_QBUF minor=1 seq=4 type=9 index=3"\n'
                         '110,0,"Video 4 Linux 2","VIDIOC_QBUF minor=1 seq=4 type=9 index=3"\n'
                         '120,0,"Video 4 Linux 2","vb2_v4l2_buf_queue minor=1 seq=4 type=0 '
                         'index=0"\n'
                         '130,0,"Video 4 Linux 2","VIDIOC_DQBUF minor=1 seq=4 type=200 '
                         'index=3"\n'
                         '140,0,"Video 4 Linux 2","VIDIOC_DQBUF minor=1 seq=4 type=9 index=3"\n'
                         '150,0,"Video 4 Linux 2","VIDIOC_DQBUF minor=1 seq=4 type=9 index=3"\n'
                         '160,0,"Video 4 Linux 2","vb2_v4l2_qbuf minor=1 seq=4 type=0 index=0"\n')
        self.assertEqual(e.query('select o.ts as out_ts, i.ts as in_ts from flow '
                                 'join slice o on slice_out = o.id '
                                 'join slice i on slice_in = i.id', path),
                         '"out_ts","in_ts"\n100,140\n')
        self.assertEqual(e.query(args_of('slice', 'ts in (100, 120, 130)'), path),
                         '"args"\n'
                         '"minor=1;index=3;type=VIDEO_CAPTURE_MPLANE;bytesused=0;'
                         'flags=QUEUED|TIMESTAMP_MASK|TIMESTAMP_COPY;field=ANY;timestamp=0;'
                         'timecode_type=NULL;timecode_flags=FLAG_DROPFRAME|FLAG_COLORFRAME|'
                         'USERBITS_field(11)|USERBITS_8BITCHARS;timecode_frames=0;'
                         'timecode_seconds=0;timecode_minutes=0;timecode_hours=0;'
                         'timecode_userbits0=0;timecode_userbits1=0;timecode_userbits2=0;'
                         'timecode_userbits3=0;sequence=4"\n'
                         '"minor=1;flags=TIMESTAMP_UNKNOWN|TSTAMP_SRC_EOF;field=NONE;timestamp=0;'
                         'timecode_type=NULL;timecode_flags=USERBITS_USERDEFINED;'
                         'timecode_frames=0;timecode_seconds=0;timecode_minutes=0;'
                         'timecode_hours=0;timecode_userbits0=0;timecode_userbits1=0;'
                         'timecode_userbits2=0;timecode_userbits3=0;sequence=4"\n'
                         '"minor=1;index=3;type=NULL;bytesused=0;'
                         'flags=TIMESTAMP_UNKNOWN|TSTAMP_SRC_EOF;field=ANY;timestamp=0;'
                         'timecode_type=NULL;timecode_flags=USERBITS_USERDEFINED;'
                         'timecode_frames=0;timecode_seconds=0;timecode_minutes=0;'
                         'timecode_hours=0;timecode_userbits0=0;timecode_userbits1=0;'
                         'timecode_userbits2=0;timecode_userbits3=0;sequence=4"\n')

    def test_long_names_are_cut(self):
        big = 4000000000
        path = self.trace(bundle(
            0,
            ftrace_event(100, 1, V4L2_QBUF, I(4, big), I(5, -1), I(6, big), I(18, big)),
            ftrace_event(200, 1, NETIF_RECEIVE_SKB, I(1, 1), S(2, 'd' * 300))))
        # the minor is signed; a slice name is cut at 63 bytes, a counter's at 254
        self.assertEqual(e.query('select name from slice', path),
                         '"name"\n"VIDIOC_QBUF minor=-1 seq=4000000000 type=4000000000 '
                         'index=40000"\n')
        self.assertEqual(e.query("select length(name) as n, length(extract_arg("
                                 "dimension_arg_set_id, 'network_interface')) as d "
                                 "from counter_track", path), '"n","d"\n254,300\n')

    def test_text_lines_make_nothing(self):
        head = '           <...>-10    (   10) [001] ....   100.%06d: '
        lines = [
            'net_dev_xmit: dev=rmnet0 skbaddr=00000000a1b2c3d4 len=2048 rc=0',
            'netif_receive_skb: dev=wlan0 skbaddr=00000000a1b2c3d4 len=2048',
            'napi_gro_receive_exit: ret=3',
            'inet_sock_set_state: family=AF_INET protocol=IPPROTO_TCP sport=4000 dport=80 '
            'oldstate=TCP_CLOSE newstate=TCP_SYN_SENT',
            'cma_alloc_start: name=farawimg count=6592 align=4']
        text = '# tracer: nop\n#\n' + ''.join(
            head % (i + 1) + line + '\n' for i, line in enumerate(lines))
        path = e.write_temp(self.dir, 'trace.systrace', text)
        self.assertEqual(e.query('select (select count(*) from slice) as s, '
                                 '(select count(*) from counter) as c, '
                                 '(select count(*) from ftrace_event) as r', path),
                         '"s","c","r"\n0,0,0\n')


if __name__ == '__main__':
    e.main()
