"""End-to-end: android.freezer, android.device, android.package_lookup and
android.statsd on small proto traces; answers as Perfetto's."""
import weft_e2e as e

SS = 1000


def freezer_trace():
    """system_server's freezer slices: com.a frozen, thawed (binder_txns),
    frozen to the trace's end; com.b thawed for an unnamed reason; com.c has
    no process; com.x:y's pid after its last ':'."""
    events = []
    for ts, name in [(1000, 'Freeze com.a:2001'), (2000, 'Unfreeze com.a:2001 18'),
                     (3000, 'Freeze com.a:2001'), (3500, 'Freeze com.b:2002'),
                     (4000, 'Unfreeze com.b:2002 14'), (4500, 'Freeze com.c:2009'),
                     (5000, 'Freeze com.x:y:2003'), (5200, 'Unfreeze com.x:y:2003 99')]:
        events += [(ts, 'B|%d|%s' % (SS, name)), (ts + 10, 'E|%d' % SS)]
    events.append((9000, 'C|%d|x|1' % SS))
    out = ['packet { timestamp: 1 process_tree {']
    out += [' processes { pid: %d ppid: 1 cmdline: "%s" }' % p
            for p in [(SS, 'system_server'), (2001, 'com.a'), (2002, 'com.b'),
                      (2003, 'com.x:y')]]
    out.append('} }')
    out.append('packet { system_info { android_build_fingerprint: '
               '"google/raven/raven:14/AP1A/123:user/release-keys" } }')
    out.append('packet { ftrace_events { cpu: 0')
    out += [' event { timestamp: %d pid: %d print { buf: "%s\\n" } }' % (ts, SS, text)
            for ts, text in sorted(events)]
    out.append('} }')
    return '\n'.join(out) + '\n'


PACKAGES = """packet { timestamp: 1 packages_list {
  packages { name: "com.android.providers.media" uid: 10050 }
  packages { name: "com.foo" uid: 10050 }
  packages { name: "com.google.android.gms" uid: 10050 }
  packages { name: "com.android.providers.a" uid: 10060 }
  packages { name: "com.android.providers.b" uid: 10060 }
  packages { name: "com.bar" uid: 10070 }
  packages { name: "com.baz" uid: 10070 }
} }
"""


class AndroidSmallModulesTest(e.TempDirTest):
    def test_freezer(self):
        t = e.textproto_trace(self.dir, 'f', freezer_trace())
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.freezer; '
                                 'SELECT * FROM android_freezer_events ORDER BY ts', t),
                         '"upid","pid","ts","dur","unfreeze_reason_int","unfreeze_reason_str"\n'
                         '3,2001,1000,1000,18,"binder_txns"\n'
                         '3,2001,3000,6000,"[NULL]","[NULL]"\n'
                         '4,2002,3500,500,14,"[NULL]"\n'
                         '5,2003,5000,200,99,"[NULL]"\n')

    def test_device(self):
        t = e.textproto_trace(self.dir, 'f', freezer_trace())
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.device; '
                                 'SELECT * FROM android_device_name', t),
                         '"name","machine_id"\n"raven",0\n')
        self.assertEqual(e.query("INCLUDE PERFETTO MODULE android.device; SELECT "
                                 "android_device_name_from_fingerprint('a/b') AS a, "
                                 "android_device_name_from_fingerprint('a/b/c:d') AS b", t),
                         '"a","b"\n"[NULL]","c"\n')

    def test_package_lookup(self):
        # gms first, then any package but a provider, then a provider; the
        # app id is the uid modulo 100000 as a 32-bit unsigned number.
        t = e.textproto_trace(self.dir, 'p', PACKAGES)
        uids = [10050, 1010050, 10060, 10070, 10080, 0, 101000, 2000, 9999, 55555, 90001, 1094,
                -1, 4294967296, 'NULL']
        got = e.query('INCLUDE PERFETTO MODULE android.package_lookup; SELECT column1 AS uid, '
                      'android_package_lookup(column1) AS p FROM (VALUES %s)'
                      % ', '.join('(%s)' % u for u in uids), t)
        self.assertEqual(got, '"uid","p"\n10050,"com.google.android.gms"\n'
                         '1010050,"com.google.android.gms"\n10060,"com.android.providers.a"\n'
                         '10070,"com.bar"\n10080,"uid=10080"\n0,"AID_ROOT"\n'
                         '101000,"AID_SYSTEM_USER"\n2000,"AID_SHELL"\n9999,"AID_NOBODY"\n'
                         '55555,"SHARED_GID"\n90001,"ISOLATED_UID"\n1094,"uid=1094"\n'
                         '-1,"uid=4294967295"\n4294967296,"AID_ROOT"\n"[NULL]","[NULL]"\n')

    def test_statsd_columns(self):
        t = e.textproto_trace(self.dir, 'p', PACKAGES)
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.statsd; '
                                 'SELECT * FROM android_statsd_atoms', t),
                         '"id","ts","dur","arg_set_id","thread_instruction_count",'
                         '"thread_instruction_delta","track_id","category","name","depth",'
                         '"parent_id","thread_ts","thread_dur"\n')


if __name__ == '__main__':
    e.main()
