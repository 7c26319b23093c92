"""End-to-end: android.anrs on an atrace-in-proto trace where system_server
reports ANRs through its "ErrorId:" / "Subject(for ErrorId ...)" counters
and its ANR timers leave "expired(...)" slices; answers as Perfetto's."""
import weft_e2e as e

SS = 1000
PROCESSES = [(SS, 'system_server'), (2001, 'com.app1'), (2003, 'com.app3'),
             (2004, 'com.app4'), (2005, 'com.app5')]


def counter(ts, name):
    return (ts, 'C|%d|%s|1' % (SS, name))


def report(ts, error_id, who, subject=None):
    """An ANR of `who` ("<process> <pid>" or just "<process>")."""
    out = [counter(ts, 'ErrorId:%s#%s' % (who, error_id))]
    if subject is not None:
        out.append(counter(ts, 'Subject(for ErrorId %s):%s' % (error_id, subject)))
    return out


def timer(ts, params):
    return [(ts, 'B|%d|expired(%s)' % (SS, params)), (ts + 1000, 'E|%d' % SS)]


EVENTS = (
    # A background broadcast (flg without 0x10000000): its closest earlier
    # timer (at 8000, not 5000; the one at 20000 is later) gives its type's
    # duration and the delay.
    report(10000, 'e1', 'com.app1 2001', 'Broadcast of Intent { act=android.intent.action.FOO '
           'flg=0x10 cmp=com.app1/.Recv }')
    + timer(5000, '11,2001,10001,BROADCAST_TIMEOUT,10000')
    + timer(8000, '12,2001,10001,BROADCAST_TIMEOUT,9000')
    + timer(20000, '13,2001,10001,BROADCAST_TIMEOUT,7000')
    # Old format without a pid: no process, no timer.
    + report(20000, 'e2', 'com.app2', 'Input dispatching timed out (abc123 '
             'com.app2/com.app2.Main (server) is not responding. Waited 5000ms)')
    # No subject; a JobScheduler timer tells no type.
    + report(30000, 'e3', 'com.app3 2003')
    + timer(25000, '14,2003,10003,JobScheduler,8000')
    # system_server's own: a watchdog, its duration from the subject.
    + report(40000, 'e4', 'system_server 1000',
             'Blocked in handler on foreground thread (android.fg) for 12s')
    + report(50000, 'e5', 'com.app4 2004', 'Context.startForegroundService() did not then '
             'call Service.startForeground(): ServiceRecord{1a2b u0 com.app4/.Svc}')
    + report(51000, 'e6', 'com.app5 2005', 'executing service com.app5/.MySvc, foo')
    + report(52000, 'e7', 'com.app5 2005', 'A foreground service of type dataSync did not '
             'stop within its timeout: ComponentInfo{com.app5/com.app5.Svc}')
    + report(53000, 'e8', 'com.app5 2005', 'App requested: custom reason')
    # Foreground broadcasts (no flags, or the foreground flag); without
    # " cmp=" the component is read from the 5th character, as Perfetto does.
    + report(54000, 'e9', 'com.app5 2005', 'Broadcast of Intent { act=BAR cmp=x/.y }')
    + report(55000, 'e10', 'com.app5 2005', 'Broadcast of android.intent.action.X/u0')
    + report(56000, 'e11', 'com.app5 2005', 'Broadcast of Intent { flg=0x10000010 act=Q }')
    + report(57000, 'e12', 'com.app5 2005', 'something weird')
    + report(58000, 'e13', 'com.app5 2005', 'A foreground service of '
             'FOREGROUND_SERVICE_TYPE_SHORT_SERVICE did not stop within a timeout: '
             'ComponentInfo{a/b}')
    + report(59000, 'e14', 'com.app9 9999', 'Input dispatching timed out (Application '
             'does not have a focused window)')
    # A timer's type wins over the subject's.
    + report(60000, 'e15', 'com.app5 2005', 'Process ProcessRecord{abc 2005:com.app5/u0a5} '
             'failed to complete startup')
    + timer(59500, '15,2005,10005,SERVICE_TIMEOUT,20000'))


def textproto():
    out = ['packet { timestamp: 1 process_tree {']
    out += [' processes { pid: %d ppid: 1 cmdline: "%s" }' % p for p in PROCESSES]
    out.append('} }')
    out.append('packet { ftrace_events { cpu: 0')
    out += [' event { timestamp: %d pid: %d print { buf: "%s\\n" } }' % (ts, SS, text)
            for ts, text in sorted(EVENTS, key=lambda ev: ev[0])]
    out.append('} }')
    return '\n'.join(out) + '\n'


class AndroidAnrsTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 'anrs', textproto())

    def q(self, sql):
        return e.query('INCLUDE PERFETTO MODULE android.anrs; ' + sql, self.trace)

    def test_columns(self):
        self.assertEqual(self.q('SELECT * FROM android_anrs WHERE error_id = \'e1\''),
                         '"process_name","pid","upid","error_id","ts","anr_type","subject",'
                         '"intent","component","timer_delay","anr_dur_ms",'
                         '"default_anr_dur_ms"\n'
                         '"com.app1",2001,3,"e1",10000,"BROADCAST_OF_INTENT","Broadcast of '
                         'Intent { act=android.intent.action.FOO flg=0x10 '
                         'cmp=com.app1/.Recv }","android.intent.action.FOO","com.app1/.Recv",'
                         '2000,9000,60000\n')

    def test_types_and_parts(self):
        self.assertEqual(self.q('SELECT error_id, process_name, pid, upid, anr_type, intent, '
                                'component, timer_delay, anr_dur_ms, default_anr_dur_ms '
                                'FROM android_anrs WHERE error_id != \'e1\' ORDER BY ts'),
                         '"error_id","process_name","pid","upid","anr_type","intent",'
                         '"component","timer_delay","anr_dur_ms","default_anr_dur_ms"\n'
                         '"e2","com.app2","[NULL]","[NULL]","INPUT_DISPATCHING_TIMEOUT",'
                         '"[NULL]","com.app2/com.app2.Main","[NULL]","[NULL]",5000\n'
                         '"e3","com.app3",2003,4,"[NULL]","[NULL]","[NULL]",5000,8000,'
                         '"[NULL]"\n'
                         '"e4","system_server",1000,2,"SYSTEM_SERVER_WATCHDOG_TIMEOUT",'
                         '"[NULL]","[NULL]","[NULL]",12000,"[NULL]"\n'
                         '"e5","com.app4",2004,5,"START_FOREGROUND_SERVICE","[NULL]",'
                         '"com.app4/.Svc}","[NULL]","[NULL]",30000\n'
                         '"e6","com.app5",2005,6,"EXECUTING_SERVICE","[NULL]",'
                         '"com.app5/.MySvc","[NULL]","[NULL]",20000\n'
                         '"e7","com.app5",2005,6,"FOREGROUND_SERVICE_TIMEOUT","[NULL]",'
                         '"com.app5/com.app5.Svc","[NULL]","[NULL]",30000\n'
                         '"e8","com.app5",2005,6,"APP_TRIGGERED","[NULL]","custom reason",'
                         '"[NULL]","[NULL]","[NULL]"\n'
                         '"e9","com.app5",2005,6,"BROADCAST_OF_INTENT","BAR","x/.y",'
                         '"[NULL]","[NULL]",10000\n'
                         '"e10","com.app5",2005,6,"BROADCAST_OF_INTENT",'
                         '"android.intent.action.X","dcast","[NULL]","[NULL]",10000\n'
                         '"e11","com.app5",2005,6,"BROADCAST_OF_INTENT","Q","dcast",'
                         '"[NULL]","[NULL]",10000\n'
                         '"e12","com.app5",2005,6,"UNKNOWN_ANR_TYPE","[NULL]","[NULL]",'
                         '"[NULL]","[NULL]","[NULL]"\n'
                         '"e13","com.app5",2005,6,"FOREGROUND_SHORT_SERVICE_TIMEOUT",'
                         '"[NULL]","a/b","[NULL]","[NULL]",180000\n'
                         '"e14","com.app9",9999,"[NULL]",'
                         '"INPUT_DISPATCHING_TIMEOUT_NO_FOCUSED_WINDOW","[NULL]","[NULL]",'
                         '"[NULL]","[NULL]",5000\n'
                         '"e15","com.app5",2005,6,"EXECUTING_SERVICE","[NULL]",'
                         '"cord{abc 2005:com.app5/u0a5} failed to complete startup",500,'
                         '20000,20000\n')


if __name__ == '__main__':
    e.main()
