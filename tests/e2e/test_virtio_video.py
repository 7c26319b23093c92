"""End-to-end: virtio-video ftrace events (proto_ftrace_dev.c,
model/kvirtio.c). Traces are generated with weft_e2e's pb_* writers; every
expected answer is worked out by hand from the rules in model/kvirtio.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

CMD, CMD_DONE, QUEUE, QUEUE_DONE = 439, 440, 441, 442


def ftrace(*events):
    """One ftrace bundle on cpu 0 of (ts, field, fields) events, task 10."""
    body = pb_int(1, 0)
    for ts, field, fields in events:
        payload = b''.join(pb_int(n, v) for n, v in fields)
        body += pb_bytes(2, pb_int(1, ts) + pb_int(2, 10) + pb_bytes(field, payload))
    return pb_packet(pb_bytes(1, body))


def queue(ts, done, queue_type, resource, stream, size0=0, stamp=0):
    return (ts, QUEUE_DONE if done else QUEUE,
            [(1, size0), (5, queue_type), (6, resource), (7, stream), (8, stamp)])


SQL = ("SELECT s.ts, s.dur, s.name, t.name AS track, t.type, "
       "extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') AS idx "
       "FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;"
       "SELECT key, display_value FROM args WHERE arg_set_id = "
       "(SELECT arg_set_id FROM slice WHERE name = 'Resource #7') ORDER BY id;"
       "SELECT key, display_value FROM args WHERE arg_set_id = (SELECT "
       "dimension_arg_set_id FROM track WHERE name GLOB '*INPUT') ORDER BY id")


class VirtioVideoTest(e.TempDirTest):
    def test_commands_and_buffers(self):
        data = ftrace(
            (1000, CMD, [(1, 1), (2, 0x101)]),
            # overlaps the first command: a second track of the set
            (1050, CMD, [(1, 1), (2, 999)]),
            (200000, CMD_DONE, [(1, 1), (2, 0x10e)]),
            queue(300000, 0, 0x100, 7, 1),
            queue(300100, 0, 5, -1, 1),
            queue(400000, 1, 0x100, 7, 1, size0=5, stamp=9),
            # a done without its queue ends nothing
            queue(400100, 1, 0x100, 99, 1))
        path = e.write_temp(self.dir, 'virtio.pb', data)
        self.assertEqual(
            e.query(SQL, path),
            '"ts","dur","name","track","type","idx"\n'
            '1000,100000,"STREAM_CREATE","virtio_video stream #1 Requests",'
            '"virtio_video_command",0\n'
            '1050,100000,"Unknown","virtio_video stream #1 Requests","virtio_video_command",1\n'
            '200000,100000,"SET_PARAMS_EXT","virtio_video stream #1 Responses",'
            '"virtio_video_command",0\n'
            '300000,100000,"Resource #7","virtio_video stream #1 INPUT",'
            '"virtio_video_queue_event",0\n'
            '300100,-1,"Resource #-1","virtio_video stream #1 Unknown",'
            '"virtio_video_queue_event",0\n\n'
            '"key","display_value"\n"stream_id","1"\n"resource_id","7"\n'
            '"queue_type","INPUT"\n"data_size0","5"\n"data_size1","0"\n"data_size2","0"\n'
            '"data_size3","0"\n"timestamp","9"\n\n'
            '"key","display_value"\n"virtio_stream_id","1"\n"virtio_queue_type","256"\n'
            '"track_compressor_idx","0"\n')


if __name__ == '__main__':
    e.main()
