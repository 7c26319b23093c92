"""End-to-end: the Android framework's process track events and the aflags
errors (proto_android_fw.c, model/android_fw.c). Traces are generated with
weft_e2e's pb_* writers; every expected answer is worked out by hand from
the rules in proto_android_fw.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

START, DIED = 2010, 2013


def thread_track(uuid, pid, tid):
    return pb_packet(pb_int(8, 1000), pb_int(10, 1),
                     pb_bytes(60, pb_int(1, uuid) + pb_bytes(4, pb_int(1, pid) + pb_int(2, tid))))


def event(ts, name, field, body):
    """An instant on thread track 2 with AndroidTrackEvent extension `field`."""
    te = pb_int(9, 3) + pb_int(11, 2) + pb_bytes(23, name) + pb_bytes(field, body)
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(11, te))


def process(pid, uid=None, name=None, extra=b''):
    out = pb_int(2, pid) + (pb_int(1, uid) if uid is not None else b'')
    return out + (pb_bytes(3, name) if name else b'') + extra


PROCESS_SQL = ('SELECT upid, start_seq_id, package_uid, fw_start_ts, fw_end_ts, trigger_type, '
               'hosting_type, hosting_name, bind_application_delay_ms AS bind, '
               'process_start_delay_ms AS start FROM __intrinsic_android_track_event_process;'
               'SELECT upid, pid, name, uid, android_appid, end_ts FROM process;'
               'SELECT tid, upid FROM thread')


class ProcessEventsTest(e.TempDirTest):
    def test_start_update_and_death(self):
        first = pb_int(10, 42) + pb_int(11, 10002) + pb_int(7, 11) + pb_int(8, 99)
        data = (thread_track(2, 100, 100) +
                event(2000, 'start', START, process(100, 10001, 'app', first)) +
                # a second start of the live process only updates its row
                event(2500, 'again', START, process(100, 1010005, 'appB',
                                                    pb_int(8, 4) + pb_bytes(6, 'svc') +
                                                    pb_int(4, 7) + pb_int(5, 8))) +
                event(3000, 'died', DIED, process(100, 1, 'ignored')) +
                event(3500, 'died again', DIED, process(100)) +  # no live process
                event(4000, 'restart', START, process(100, 10001)) +
                event(4500, 'no pid', START, pb_int(1, 5)))
        path = e.write_temp(self.dir, 'fw.pb', data)
        self.assertEqual(e.query(PROCESS_SQL, path),
                         '"upid","start_seq_id","package_uid","fw_start_ts","fw_end_ts",'
                         '"trigger_type","hosting_type","hosting_name","bind","start"\n'
                         '1,42,10002,2000,3000,"TRIGGER_TYPE_JOB","HOSTING_TYPE_SERVICE","svc",7,8\n'
                         '2,"[NULL]","[NULL]",4000,"[NULL]","[NULL]","[NULL]","[NULL]",'
                         '"[NULL]","[NULL]"\n\n'
                         '"upid","pid","name","uid","android_appid","end_ts"\n'
                         '0,0,"[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '1,100,"appB",1010005,10005,3000\n'
                         '2,100,"[NULL]",10001,10001,"[NULL]"\n\n'
                         '"tid","upid"\n0,0\n100,1\n100,2\n')

    def test_death_without_start(self):
        data = (thread_track(2, 100, 100) +
                event(3000, 'died', DIED, process(100)) +
                event(3100, 'unknown pid', DIED, process(300)) +
                event(3200, 'new', START, process(400, extra=pb_int(7, 99))))
        path = e.write_temp(self.dir, 'died.pb', data)
        self.assertEqual(e.query(
            'SELECT upid, fw_start_ts, fw_end_ts, hosting_type '
            'FROM __intrinsic_android_track_event_process;'
            'SELECT upid, pid, end_ts FROM process; SELECT tid, upid, end_ts FROM thread', path),
            '"upid","fw_start_ts","fw_end_ts","hosting_type"\n'
            '1,"[NULL]",3000,"[NULL]"\n2,3200,"[NULL]","99"\n\n'
            '"upid","pid","end_ts"\n0,0,"[NULL]"\n1,100,3000\n2,400,"[NULL]"\n\n'
            # the death ends the main thread too
            '"tid","upid","end_ts"\n0,0,"[NULL]"\n100,1,3000\n400,2,"[NULL]"\n')


class AflagsTest(e.TempDirTest):
    def test_error_is_a_stat_and_an_import_log(self):
        data = (pb_packet(pb_int(8, 2000), pb_int(10, 1), pb_bytes(127, pb_bytes(2, 'bad'))) +
                pb_packet(pb_int(8, 3000), pb_int(10, 1), pb_bytes(127, b'')))
        path = e.write_temp(self.dir, 'aflags.pb', data)
        self.assertEqual(e.query(
            'SELECT ts, name, severity, trace_id, byte_offset, key, display_value '
            'FROM _trace_import_logs JOIN args USING (arg_set_id);'
            "SELECT value FROM stats WHERE name = 'android_aflags_errors'", path),
            '"ts","name","severity","trace_id","byte_offset","key","display_value"\n'
            '2000,"android_aflags_errors","error",0,"[NULL]","error","bad"\n\n'
            '"value"\n1\n')


class AflagsSnapshotTest(e.TempDirTest):
    def test_flags_by_name_and_error_packets_skipped(self):
        full = (pb_bytes(1, 'ns') + pb_bytes(2, 'flag_a') + pb_bytes(3, 'com.pkg') +
                pb_bytes(4, 'system') + pb_bytes(5, 'true') + pb_bytes(6, 'false') +
                pb_int(7, 2) + pb_int(8, 3) + pb_int(9, 2) + pb_int(10, 1))
        sparse = pb_bytes(2, 'flag_b') + pb_int(7, 9)  # 9: no such permission
        data = (pb_packet(pb_int(8, 100), pb_int(10, 1),
                          pb_bytes(127, pb_bytes(1, full) + pb_bytes(1, sparse))) +
                # a packet with an error keeps none of its flags
                pb_packet(pb_int(8, 200), pb_int(10, 1),
                          pb_bytes(127, pb_bytes(1, sparse) + pb_bytes(2, 'failed'))))
        path = e.write_temp(self.dir, 'flags.pb', data)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.aflags;'
            'SELECT ts, package, name, flag_namespace, container, value, staged_value, '
            'permission, value_picked_from, storage_backend, type FROM android_aflags;'
            'SELECT ts FROM _trace_import_logs', path),
            '"ts","package","name","flag_namespace","container","value","staged_value",'
            '"permission","value_picked_from","storage_backend","type"\n'
            '100,"com.pkg","flag_a","ns","system","true","false","read-write","local",'
            '"aconfigd","boolean"\n'
            '100,"[NULL]","flag_b","[NULL]","[NULL]","[NULL]","[NULL]","unspecified",'
            '"unspecified","unspecified","unspecified"\n\n'
            '"ts"\n200\n')


if __name__ == '__main__':
    e.main()
