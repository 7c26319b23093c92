"""End-to-end: every machine has its idle process and thread (pid and tid
0), as Perfetto gives each machine's context its own: machine row 0's are
upid 0 and utid 0; every later machine's are made with the machine, before
any process or thread its data names. The idle thread is named "swapper"
by proto or kernel data of its own machine, never by another machine's.
Each trace file has tracks of its own, as each of Perfetto's per-file
contexts interns its own: two files with the same thread give it two
tracks."""
import json
import os
import zipfile

import weft_e2e as e

THREADS = 'select utid, tid, name, upid, is_idle, is_main_thread, machine_id from thread order by utid'
PROCESSES = 'select upid, pid, machine_id from process order by upid'


def print_event(ts, pid, text):
    """An ftrace print event (FtraceEvent.print, field 3) of task pid."""
    return e.pb_bytes(2, e.pb_int(1, ts) + e.pb_int(2, pid) + e.pb_bytes(3, e.pb_bytes(2, text)))


def bundle(cpu, *events, machine=None):
    extra = e.pb_int(98, machine) if machine is not None else b''
    return e.pb_packet(e.pb_bytes(1, e.pb_int(1, cpu) + b''.join(events)), e.pb_int(10, 1), extra)


class MachineIdleTest(e.TempDirTest):
    def query(self, sql, path):
        return e.query(sql, path).strip().split('\n')[1:]

    def test_embedded_machines_get_named_idle_threads_first(self):
        trace = (bundle(0, print_event(1000, 10, 'B|10|a\n'), print_event(1100, 10, 'E|10\n'))
                 + bundle(0, print_event(1200, 20, 'B|20|b\n'), machine=7)
                 + bundle(1, print_event(1400, 30, 'B|30|c\n'), machine=9))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        self.assertEqual(self.query(THREADS, p), [
            '0,0,"swapper",0,1,1,0', '1,0,"swapper",1,1,1,1', '2,0,"swapper",2,1,1,2',
            '3,10,"[NULL]",3,0,1,0', '4,20,"[NULL]",4,0,1,1', '5,30,"[NULL]",5,0,1,2'])
        self.assertEqual(self.query(PROCESSES, p),
                         ['0,0,0', '1,0,1', '2,0,2', '3,10,0', '4,20,1', '5,30,2'])

    def manifest_zip(self, files, members):
        path = os.path.join(self.dir, 'merge.zip')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('meta.json', json.dumps({'perfetto_manifest': {'version': 1,
                                                                      'files': files}}))
            for name, data in members.items():
                z.writestr(name, data)
        return path

    def test_kernel_data_names_the_idle_thread_of_its_own_machine(self):
        # JSON on the first machine, a systrace on the second: the second's
        # idle thread is "swapper" (not a new "swapper/0"), the first's has
        # no name, as a JSON-only trace's has none.
        app = json.dumps({'traceEvents': [{'pid': 10, 'tid': 10, 'ts': 2000, 'dur': 500,
                                           'ph': 'X', 'name': 'json_slice'}]})
        sys_txt = ('# tracer: nop\n#\n'
                   '          <idle>-0     [000] d..3   100.000000: sched_switch: '
                   'prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> '
                   'next_comm=foo next_pid=42 next_prio=120\n'
                   '             foo-42    [000] d..3   100.100000: sched_switch: '
                   'prev_comm=foo prev_pid=42 prev_prio=120 prev_state=S ==> '
                   'next_comm=swapper/0 next_pid=0 next_prio=120\n')
        p = self.manifest_zip(
            [{'path': 'app.json', 'machine': {'name': 'phone'}},
             {'path': 'sys.txt', 'machine': {'name': 'server'},
              'clocks': {'offset_ns': 500, 'sync_to': {'file': 'app.json'}}}],
            {'app.json': app, 'sys.txt': sys_txt})
        self.assertEqual(self.query(THREADS, p), [
            '0,0,"[NULL]",0,1,1,0', '1,0,"swapper",1,1,1,1', '2,10,"[NULL]",2,0,1,0',
            '3,42,"foo","[NULL]",0,"[NULL]",1'])
        self.assertEqual(self.query(PROCESSES, p), ['0,0,0', '1,0,1', '2,10,0'])
        # the server's cpu 0 ran its own idle thread
        self.assertEqual(self.query('select utid, ts, cpu from sched order by ts', p),
                         ['3,100000000000,4096', '1,100100000000,4096'])

    def test_json_on_a_second_machine_leaves_its_idle_thread_unnamed(self):
        phone = e.pb_packet(e.pb_bytes(1, e.pb_int(1, 0) + print_event(1000, 10, 'B|10|a\n')),
                            e.pb_int(10, 1))
        app = json.dumps({'traceEvents': [{'pid': 10, 'tid': 10, 'ts': 2, 'dur': 1,
                                           'ph': 'X', 'name': 'json_slice'}]})
        p = self.manifest_zip(
            [{'path': 'phone.pb', 'machine': {'name': 'phone'}},
             {'path': 'app.json', 'machine': {'name': 'server'},
              'clocks': {'offset_ns': 500, 'sync_to': {'file': 'phone.pb', 'clock': 'BOOTTIME'}}}],
            {'phone.pb': phone, 'app.json': app})
        self.assertEqual(self.query(THREADS, p)[:2],
                         ['0,0,"swapper",0,1,1,0', '1,0,"[NULL]",1,1,1,1'])

    def test_json_pid_zero_starts_a_process_of_its_own_on_every_machine(self):
        # In a load of JSON files only, pid 0 is not a machine's idle
        # process on the second machine either, and only the idle threads
        # are idle.
        def events(name, tid):
            return json.dumps({'traceEvents': [
                {'pid': 0, 'tid': 0, 'ts': 2000, 'dur': 500, 'ph': 'X', 'name': name + '0'},
                {'pid': 0, 'tid': tid, 'ts': 2100, 'dur': 5, 'ph': 'X', 'name': name + str(tid)}]})
        p = self.manifest_zip(
            [{'path': 'a.json', 'machine': {'name': 'A'}},
             {'path': 'b.json', 'machine': {'name': 'B'},
              'clocks': {'offset_ns': 0, 'sync_to': {'file': 'a.json'}}}],
            {'a.json': events('a', 3), 'b.json': events('b', 4)})
        self.assertEqual(self.query(THREADS, p), [
            '0,0,"[NULL]",0,1,1,0', '1,0,"[NULL]",1,1,1,1', '2,0,"[NULL]",2,0,1,0',
            '3,0,"[NULL]",3,0,1,1', '4,4,"[NULL]",3,0,0,1', '5,3,"[NULL]",2,0,0,0'])
        self.assertEqual(self.query('select s.name, t.utid from slice s join thread_track t '
                                    'on s.track_id = t.id order by s.name', p),
                         ['"a0",2', '"a3",5', '"b0",3', '"b4",4'])

    def test_the_machine_of_the_first_file_has_utid_0_and_files_lead_ties_in_order(self):
        # The manifest names machine B first (row 0), but the first file is
        # on the host (row 1): the host has upid/utid 0, B gets its own
        # idle process and thread when its file begins; at equal times the
        # files' events come in file order, whatever their machines.
        def one(name):
            return json.dumps({'traceEvents': [{'pid': 5, 'tid': 5, 'ts': 2000, 'dur': 500,
                                                'ph': 'X', 'name': name}]})
        p = self.manifest_zip([{'path': 'a.json'},
                               {'path': 'b.json', 'machine': {'name': 'B'}},
                               {'path': 'c.json'}],
                              {'a.json': one('a'), 'b.json': one('b'), 'c.json': one('c')})
        self.assertEqual(self.query('select id, raw_id, name from machine order by id', p),
                         ['0,4294967296,"B"', '1,0,"[NULL]"'])
        self.assertEqual(self.query('select utid, tid, upid, machine_id from thread '
                                    'order by utid', p),
                         ['0,0,0,1', '1,0,1,0', '2,5,2,1', '3,5,3,0'])
        self.assertEqual(self.query('select name from slice order by id', p),
                         ['"a"', '"b"', '"c"'])

    def test_each_file_has_tracks_of_its_own(self):
        a = {'traceEvents': [
            {'pid': 10, 'tid': 10, 'ts': 2000, 'dur': 500, 'ph': 'X', 'name': 'sa'},
            {'pid': 10, 'ph': 'C', 'name': 'ctr', 'ts': 2000, 'args': {'v': 1}},
            {'pid': 10, 'tid': 10, 'ph': 'i', 's': 'p', 'name': 'pi', 'ts': 2001}]}
        b = {'traceEvents': [
            {'pid': 10, 'tid': 10, 'ts': 2100, 'dur': 5, 'ph': 'X', 'name': 'sb'},
            {'pid': 10, 'ph': 'C', 'name': 'ctr', 'ts': 3000, 'args': {'v': 2}},
            {'pid': 10, 'tid': 10, 'ph': 'i', 's': 'p', 'name': 'pi2', 'ts': 3001}]}
        p = self.manifest_zip([{'path': 'a.json', 'machine': {'name': 'phone'}},
                               {'path': 'b.json', 'machine': {'name': 'phone'}}],
                              {'a.json': json.dumps(a), 'b.json': json.dumps(b)})
        self.assertEqual(self.query('select id, type, dimension_arg_set_id from track '
                                    'order by id', p),
                         ['0,"thread_execution",0', '1,"chrome_process_instant",2',
                          '2,"thread_execution",0', '3,"chrome_process_instant",2',
                          '4,"json_counter",4', '5,"json_counter",4'])
        # sb lies inside sa in time, but on the second file's own track
        self.assertEqual(self.query('select name, track_id, depth from slice order by ts', p),
                         ['"sa",0,0', '"pi",1,0', '"sb",2,0', '"pi2",3,0'])
        self.assertEqual(self.query('select count(distinct utid) from thread_track', p), ['1'])


if __name__ == '__main__':
    e.main()
