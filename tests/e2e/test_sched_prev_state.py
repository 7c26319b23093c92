"""End-to-end: sched_switch prev_state decoding as Perfetto does it: the
value read as 16 bits, the layout by kernel release (4.4 when unknown);
an invalid state (4.14+: bits 0xfe00) is a NULL end_state / thread state,
counted in task_state_invalid; to_ftrace always uses the 4.4 layout."""
import weft_e2e as e

STATES = [0x40, 0x80, 0x100, 0x200, 0x400, 0x10000, 0x10001]


def trace(release):
    events, ts = [], 1000
    for i, state in enumerate(STATES):
        pid = 100 + i
        events.append('event { timestamp: %d pid: 0 sched_switch { prev_comm: "swapper" '
                      'prev_pid: 0 prev_prio: 120 prev_state: 0 next_comm: "t%d" next_pid: %d '
                      'next_prio: 120 } }' % (ts, pid, pid))
        events.append('event { timestamp: %d pid: %d sched_switch { prev_comm: "t%d" '
                      'prev_pid: %d prev_prio: 120 prev_state: %d next_comm: "swapper" '
                      'next_pid: 0 next_prio: 120 } }' % (ts + 10, pid, pid, pid, state))
        ts += 100
    return ('packet { system_info { utsname { sysname: "Linux" release: "%s" } } }\n'
            'packet { ftrace_events { cpu: 0 %s } }\n' % (release, ' '.join(events)))


STATE_QUERY = ("select group_concat(ifnull(s.end_state, 'NULL') || '/' || "
               "ifnull((select state from thread_state x where x.utid = s.utid and "
               "x.ts = s.ts + s.dur), 'NULL'), ' ') from (select * from sched order by ts) s "
               "join thread t using(utid) where t.tid >= 100")
FTRACE = ("select group_concat(substr(line, instr(line, 'prev_state=') + 11, "
          "instr(line, ' ==>') - instr(line, 'prev_state=') - 11), ' ') from "
          "(select to_ftrace(id) as line from ftrace_event where name = 'sched_switch' "
          "order by ts) where line glob '*prev_comm=t*'")


class SchedPrevStateTest(e.TempDirTest):
    def one(self, sql, p):
        return e.query(sql, p).splitlines()[1].strip('"')

    def test_kernel_4_4_layout(self):
        p = e.textproto_trace(self.dir, 'trace', trace('4.4.0'))
        self.assertEqual(self.one(STATE_QUERY, p), 'x/x K/K W/W P/P N/N R/R S/S')

    def test_kernel_5_15_layout_and_invalid_states(self):
        p = e.textproto_trace(self.dir, 'trace', trace('5.15.0'))
        self.assertEqual(self.one(STATE_QUERY, p), 'P/P I/I R+/R+ NULL/NULL NULL/NULL R/R S/S')
        self.assertEqual(e.query("select value from stats where name = 'task_state_invalid'",
                                 p), '"value"\n2\n')
        self.assertEqual(self.one(FTRACE, p), 'x K W P N R S')


if __name__ == '__main__':
    e.main()
