"""End-to-end: android.job_scheduler and android.frames.jank_type, with the
answers Perfetto's trace processor gives on the same input."""
import weft_e2e as e


def print_event(ts, text, pid=1000):
    return 'event { timestamp: %d pid: %d print { buf: "%s\\n" } }\n' % (ts, pid, text)


PROCESSES = ('packet { trusted_packet_sequence_id: 1 timestamp: 1 process_tree { '
             'processes { pid: 1000 ppid: 1 cmdline: "system_server" } '
             'processes { pid: 2000 ppid: 1 cmdline: "com.app" } } }\n')


class AndroidJobsTest(e.TempDirTest):
    def test_job_scheduler_events(self):
        events = [print_event(1000, 'G|1000|JobScheduler|job<10100>com.app/.Svc#42#|7'),
                  print_event(1100, 'G|1000|JobScheduler|job<1000>android/com.android.server.Foo'
                              '#-5#|8'),
                  print_event(1200, 'G|1000|JobScheduler|other thing|9'),
                  print_event(1300, 'G|1000|JobScheduler|Job<10100>x/y#1#|12'),
                  print_event(1500, 'H|1000|JobScheduler|7'),
                  print_event(2000, 'G|1000|Other|job<10100>com.app/.Svc#43#|10'),
                  print_event(2000, 'G|2000|JobScheduler|job<10100>com.app/.Svc#45#|10', 2000),
                  print_event(3000, 'G|1000|JobScheduler|jobby|13'),
                  print_event(5000, 'C|1000|x|1')]
        path = e.textproto_trace(self.dir, 'jobs.pb', PROCESSES + (
            'packet { trusted_packet_sequence_id: 1 ftrace_events { cpu: 0\n%s} }\n'
            % ''.join(events)))
        # only system_server's JobScheduler track and names containing "job";
        # an unfinished job lasts to the trace's end; a name without the
        # parts gives NULLs
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.job_scheduler; '
            'select job_id, uid, package_name, job_service_name, ts, dur '
            'from android_job_scheduler_events', path),
            '"job_id","uid","package_name","job_service_name","ts","dur"\n'
            '42,10100,"com.app",".Svc",1000,500\n'
            '-5,1000,"android","com.android.server.Foo",1100,3900\n'
            '"[NULL]","[NULL]","[NULL]","[NULL]",3000,2000\n')

    def test_jank_types(self):
        path = e.textproto_trace(self.dir, 'empty.pb', PROCESSES)
        names = ['None', 'App Deadline Missed', 'SurfaceFlinger CPU Deadline Missed',
                 'Display HAL', 'Prediction Error', 'Dropped Frame', 'Buffer Stuffing',
                 'SurfaceFlinger Stuffing', 'Buffer Stuffing, SurfaceFlinger Scheduling',
                 'dropped frame']
        values = ', '.join("('%s')" % n for n in names)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.frames.jank_type; '
            'select android_is_sf_jank_type(j) as sf, android_is_app_jank_type(j) as app, '
            'android_is_missed_frame_type(j) as missed '
            'from (select column1 as j from (values %s))' % values, path),
            '"sf","app","missed"\n'
            '0,0,0\n0,1,1\n1,0,1\n1,0,1\n1,0,1\n0,0,1\n0,0,0\n0,0,0\n1,0,1\n0,0,0\n')


if __name__ == '__main__':
    e.main()
