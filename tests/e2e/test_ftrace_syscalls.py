"""End-to-end: raw_syscalls sys_enter/sys_exit slices as Perfetto makes
them: names by the ABI of the system info's utsname machine (exactly
aarch64, x86_64, i686, or armv7l/armv8l for 32-bit arm), "sys_<n>" otherwise, no slice from number 550 on;
an exit ends the innermost open slice of its name and gives it its return
value as arg "ret"; a print event inside sys_write cuts that slice
short."""
import weft_e2e as e

SLICES = ("select s.ts, s.dur, s.name, s.depth, t.utid from slice s "
          "join thread_track t on s.track_id = t.id order by s.ts")


def syscalls(ids):
    events, ts = [], 100
    for i in ids:
        events.append('event { timestamp: %d pid: 5 sys_enter { id: %d } }' % (ts, i))
        events.append('event { timestamp: %d pid: 5 sys_exit { id: %d ret: 0 } }' % (ts + 5, i))
        ts += 10
    return 'packet { ftrace_events { cpu: 0 %s } }\n' % ' '.join(events)


def system_info(machine):
    return 'packet { system_info { utsname { sysname: "Linux" machine: "%s" } } }\n' % machine


class FtraceSyscallsTest(e.TempDirTest):
    def names(self, text):
        p = e.textproto_trace(self.dir, 'trace', text)
        return e.query("select name from slice order by ts", p).splitlines()[1:]

    def test_names_by_machine(self):
        ids = [0, 63, 250, 549, 550, 4294967296 + 63]
        self.assertEqual(self.names(syscalls(ids)),
                         ['"sys_0"', '"sys_63"', '"sys_250"', '"sys_549"', '"sys_63"'])
        self.assertEqual(self.names(system_info('aarch64') + syscalls(ids)),
                         ['"sys_io_setup"', '"sys_read"', '"sys_250"', '"sys_549"', '"sys_read"'])
        self.assertEqual(self.names(system_info('x86_64') + syscalls([0, 63])),
                         ['"sys_read"', '"sys_uname"'])
        self.assertEqual(self.names(system_info('arm64') + syscalls([63])), ['"sys_63"'])

    def test_every_table_ends_at_futex_requeue(self):
        # Numbers from 424 on are shared by all ABIs; 447 (memfd_secret) is
        # not wired on 32-bit arm; x86-64's x32 entries start at 512.
        ids = [3, 7, 13, 102, 270, 447, 451, 456, 457, 512, 547]
        expected = {
            'aarch64': ['sys_io_cancel', 'sys_fsetxattr', 'sys_flistxattr', 'sys_getitimer',
                        'sys_process_vm_readv', 'sys_memfd_secret', 'sys_cachestat',
                        'sys_futex_requeue', 'sys_457', 'sys_512', 'sys_547'],
            'x86_64': ['sys_close', 'sys_poll', 'sys_rt_sigaction', 'sys_getuid',
                       'sys_pselect6', 'sys_memfd_secret', 'sys_cachestat',
                       'sys_futex_requeue', 'sys_457', 'sys_rt_sigaction', 'sys_pwritev2'],
            'i686': ['sys_read', 'sys_waitpid', 'sys_time', 'sys_socketcall', 'sys_tgkill',
                     'sys_memfd_secret', 'sys_cachestat', 'sys_futex_requeue', 'sys_457',
                     'sys_512', 'sys_547'],
        }
        arm = ['sys_read', 'sys_7', 'sys_time', 'sys_socketcall', 'sys_arm_fadvise64_64',
               'sys_447', 'sys_cachestat', 'sys_futex_requeue', 'sys_457', 'sys_512',
               'sys_547']
        expected['armv7l'] = expected['armv8l'] = arm
        for machine, names in expected.items():
            with self.subTest(machine=machine):
                self.assertEqual(self.names(system_info(machine) + syscalls(ids)),
                                 ['"%s"' % n for n in names])

    def test_an_exit_gives_its_slice_the_return_value(self):
        # "ret" joins the args of the slice the exit ends; an exit without
        # ret, or one that ends nothing (a write cut by a print), adds none
        text = system_info('aarch64') + """
packet { ftrace_events { cpu: 0
 event { timestamp: 100 pid: 5 sys_enter { id: 63 } }
 event { timestamp: 110 pid: 5 sys_exit { id: 63 ret: -11 } }
 event { timestamp: 120 pid: 5 sys_enter { id: 63 } }
 event { timestamp: 130 pid: 5 sys_exit { id: 63 } }
 event { timestamp: 140 pid: 5 sys_enter { id: 64 } }
 event { timestamp: 150 pid: 5 print { buf: "B|5|work\\n" } }
 event { timestamp: 160 pid: 5 sys_exit { id: 64 ret: 4 } }
} }
"""
        p = e.textproto_trace(self.dir, 'trace', text)
        self.assertEqual(e.query("select s.ts, s.name, a.key, a.int_value from slice s "
                                 "left join args a using (arg_set_id) order by s.ts", p),
                         '"ts","name","key","int_value"\n'
                         '100,"sys_read","ret",-11\n120,"sys_read","[NULL]","[NULL]"\n'
                         '140,"sys_write","[NULL]","[NULL]"\n150,"work","[NULL]","[NULL]"\n')

    def test_an_enter_gives_its_slice_the_arguments(self):
        # each argument is the uint arg "args[i]" (flat key "args"); the
        # exit's ret joins the same set
        text = system_info('aarch64') + """
packet { ftrace_events { cpu: 0
 event { timestamp: 100 pid: 5 sys_enter { id: 63 args: 3 args: 140737488355328 args: 18446744073709551615 } }
 event { timestamp: 110 pid: 5 sys_exit { id: 63 ret: 5 } }
 event { timestamp: 120 pid: 5 sys_enter { id: 64 } }
} }
"""
        p = e.textproto_trace(self.dir, 'trace', text)
        self.assertEqual(e.query("select s.ts, a.flat_key, a.key, a.int_value, a.value_type "
                                 "from slice s left join args a using (arg_set_id) "
                                 "order by s.ts, a.id", p),
                         '"ts","flat_key","key","int_value","value_type"\n'
                         '100,"args","args[0]",3,"uint"\n'
                         '100,"args","args[1]",140737488355328,"uint"\n'
                         '100,"args","args[2]",-1,"uint"\n'
                         '100,"ret","ret",5,"int"\n'
                         '120,"[NULL]","[NULL]","[NULL]","[NULL]"\n')

    def test_exits_end_by_name_and_prints_cut_writes(self):
        text = system_info('aarch64') + '''
packet { ftrace_events { cpu: 0
 event { timestamp: 100 pid: 5 sys_enter { id: 64 } }
 event { timestamp: 105 pid: 6 print { buf: "B|6|other\\n" } }
 event { timestamp: 110 pid: 5 print { buf: "C|5|ctr|3\\n" } }
 event { timestamp: 120 pid: 5 sys_exit { id: 64 ret: 0 } }
 event { timestamp: 130 pid: 5 sys_enter { id: 63 } }
 event { timestamp: 140 pid: 5 print { buf: "B|5|work\\n" } }
 event { timestamp: 150 pid: 5 sys_exit { id: 57 ret: 0 } }
 event { timestamp: 160 pid: 5 sys_exit { id: 63 ret: 0 } }
 event { timestamp: 180 pid: 7 sys_exit { id: 64 ret: 0 } }
 event { timestamp: 190 pid: 7 sys_enter { id: 64 } }
 event { timestamp: 200 pid: 7 sys_enter { id: 64 } }
 event { timestamp: 210 pid: 7 sys_exit { id: 64 ret: 0 } }
 event { timestamp: 220 pid: 7 sys_exit { id: 64 ret: 0 } }
} }
'''
        p = e.textproto_trace(self.dir, 'trace', text)
        self.assertEqual(e.query(SLICES, p), (
            '"ts","dur","name","depth","utid"\n'
            '100,10,"sys_write",0,1\n'
            '105,-1,"other",0,2\n'
            '130,30,"sys_read",0,1\n'
            '140,-1,"work",1,1\n'
            '190,-1,"sys_write",0,3\n'
            '200,10,"sys_write",1,3\n'))
        self.assertEqual(e.query("select value from stats where name = "
                                 "'truncated_sys_write_duration'", p), '"value"\n1\n')


if __name__ == '__main__':
    e.main()
