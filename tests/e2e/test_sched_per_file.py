"""End-to-end: two trace files of one machine in a zip keep their sched and
thread state bookkeeping apart (model/sched.h, model/gkernel.h): each file
has its own open sched slice per cpu and its own open thread_state row per
thread, while threads and processes are the machine's. The traces are
Perfetto text format encoded by protoc; the expected answers are the ones
Perfetto's trace processor gives for the same zips."""
import os
import shutil
import unittest
import zipfile

import weft_e2e as e


def ftrace(*events):
    return 'packet { ftrace_events { cpu: 0 %s } }' % ' '.join(events)


def switch(ts, prev_comm, prev_pid, next_comm, next_pid, prev_state=0):
    return ('event { timestamp: %d pid: %d sched_switch { prev_comm: "%s" prev_pid: %d '
            'prev_state: %d next_comm: "%s" next_pid: %d next_prio: 120 } }'
            % (ts, prev_pid, prev_comm, prev_pid, prev_state, next_comm, next_pid))


def waking(ts, pid, comm, target):
    return ('event { timestamp: %d pid: %d sched_waking { comm: "%s" pid: %d prio: 120 '
            'target_cpu: 0 } }' % (ts, pid, comm, target))


def task_state(ts, state):
    return ('packet { timestamp: %d generic_kernel_task_state_event { cpu: 0 comm: "task1" '
            'tid: 101 state: %d prio: 100 } }' % (ts, state))


STATS = ("select name, sum(value) as value from stats where name in "
         "('mismatched_sched_switch_tids', 'generic_task_state_invalid_order') "
         "group by name order by name")
NO_ERRORS = ('"name","value"\n"generic_task_state_invalid_order",0\n'
             '"mismatched_sched_switch_tids",0\n')
SCHED = ("select t.tid, s.ts, s.dur, s.cpu, s.end_state from sched s join thread t "
         "using (utid) order by s.ts, t.tid, s.dur")


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class SchedPerFileTest(e.TempDirTest):
    def zip_of(self, members):
        """A zip of the text-format traces `members` (name -> text)."""
        path = os.path.join(self.dir, 'two.zip')
        with zipfile.ZipFile(path, 'w') as z:
            for name, text in members:
                z.write(e.textproto_trace(self.dir, name, text), name)
        return path

    def test_files_interleaving_on_one_cpu(self):
        # t2's early waking and switches on cpu 0 run between t1's: neither
        # file's switch closes the other's slices or states.
        path = self.zip_of([
            ('t1.pb', ftrace(switch(2000, 't1', 10, 't2', 20, 1), switch(3000, 't2', 20, 't1', 10, 1),
                             switch(4000, 't1', 10, 't2', 20, 1))),
            ('t2.pb', ftrace(waking(1000, 1, 't2', 20), switch(2500, 't3', 30, 't2', 20, 1),
                             switch(3500, 't2', 20, 't3', 30, 1)))])
        out = e.query("select t.tid, s.ts, s.dur, s.state from thread_state s join thread t "
                      "using (utid) order by t.tid, s.ts, s.dur, s.state", path)
        self.assertEqual(out, '"tid","ts","dur","state"\n'
                         '10,2000,1000,"S"\n10,3000,1000,"Running"\n10,4000,-1,"S"\n'
                         '20,1000,1500,"R"\n20,2000,1000,"Running"\n20,2500,1000,"Running"\n'
                         '20,3000,1000,"S"\n20,3500,-1,"S"\n20,4000,-1,"Running"\n'
                         '30,2500,1000,"S"\n30,3500,-1,"Running"\n')
        self.assertEqual(e.query(SCHED, path), '"tid","ts","dur","cpu","end_state"\n'
                         '20,2000,1000,0,"S"\n20,2500,1000,0,"S"\n10,3000,1000,0,"S"\n'
                         '30,3500,-1,0,"[NULL]"\n20,4000,-1,0,"[NULL]"\n')
        self.assertEqual(e.query(STATS, path), NO_ERRORS)

    def test_identical_files_with_waking(self):
        # Two copies of one trace: every row twice, each waking's waker row
        # the Running row of its own file.
        trace = ftrace(switch(1000, 't1', 10, 't2', 20, 1), waking(1500, 20, 't1', 10),
                       switch(2500, 't2', 20, 't1', 10))
        path = self.zip_of([('trace1.pftrace', trace), ('trace2.pftrace', trace)])
        out = e.query("select t.tid, s.ts, s.dur, s.state, w.state as waker_row "
                      "from thread_state s join thread t using (utid) "
                      "left join thread_state w on w.id = s.waker_id "
                      "order by t.tid, s.ts, s.dur, s.state", path)
        self.assertEqual(out, '"tid","ts","dur","state","waker_row"\n'
                         + '10,1000,500,"S","[NULL]"\n' * 2
                         + '10,1500,1000,"R","Running"\n' * 2
                         + '10,2500,-1,"Running","[NULL]"\n' * 2
                         + '20,1000,1500,"Running","[NULL]"\n' * 2
                         + '20,2500,-1,"R","[NULL]"\n' * 2)
        self.assertEqual(e.query("select count(distinct waker_id) as wakers from thread_state",
                                 path), '"wakers"\n2\n')
        self.assertEqual(e.query(SCHED, path), '"tid","ts","dur","cpu","end_state"\n'
                         + '20,1000,1500,0,"R"\n' * 2 + '10,2500,-1,0,"[NULL]"\n' * 2)
        self.assertEqual(e.query(STATS, path), NO_ERRORS)

    def test_identical_generic_kernel_files(self):
        # RUNNING then DESTROYED in both files: each file runs the task on
        # its own cpu 0; the second DESTROYED finds the thread ended and
        # makes a new one, leaving the second file's Running row open.
        trace = task_state(1000, 3) + ' ' + task_state(2000, 8)
        path = self.zip_of([('trace1.pftrace', trace), ('trace2.pftrace', trace)])
        out = e.query("select s.utid, t.tid, s.ts, s.dur, s.state from thread_state s "
                      "join thread t using (utid) order by s.utid, s.ts, s.dur, s.state", path)
        self.assertEqual(out, '"utid","tid","ts","dur","state"\n'
                         '1,101,1000,-1,"Running"\n1,101,1000,1000,"Running"\n'
                         '1,101,2000,-1,"X"\n2,101,2000,-1,"X"\n')
        self.assertEqual(e.query(SCHED, path), '"tid","ts","dur","cpu","end_state"\n'
                         + '101,1000,1000,0,"X"\n' * 2)
        self.assertEqual(e.query(STATS, path), NO_ERRORS)


if __name__ == '__main__':
    e.main()
