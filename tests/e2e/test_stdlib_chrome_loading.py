"""End-to-end: the chrome.page_loads, chrome.startups,
chrome.web_content_interactions and chrome.interactions stdlib modules on a
text-format Chrome trace with two browser processes and a renderer; the answers are
Perfetto's on the same trace."""
import weft_e2e as e

P = '''packet {{ trusted_packet_sequence_id: {seq} timestamp: 0
  track_descriptor {{ uuid: {uuid} {body} }} }}
'''
E = '''packet {{ trusted_packet_sequence_id: {seq} timestamp: {ts}
  track_event {{ type: {type} track_uuid: {track} {fields} }} }}
'''


def build_trace():
    """Browser 1 (pid 1): page loads on its PageLoadMetrics track (one fully
    measured, one with FCP only, one with two LCPs, one FCP on a thread
    track, which is not a page load) and startups; browser 2 (pid 2) reuses
    navigation id 1 and activity id 7."""
    out = []

    def desc(uuid, body, seq=1):
        out.append(P.format(seq=seq, uuid=uuid, body=body))

    def ev(ts, track, typ, fields='', seq=1):
        out.append(E.format(seq=seq, ts=ts, track=track, type=typ, fields=fields))

    desc(10, 'process { pid: 1 process_name: "Browser" }')
    desc(11, 'parent_uuid: 10 thread { pid: 1 tid: 1 thread_name: "CrBrowserMain" }')
    desc(12, 'parent_uuid: 10 name: "PageLoadMetrics"')
    desc(20, 'process { pid: 2 process_name: "Browser" }', 2)
    desc(21, 'parent_uuid: 20 name: "PageLoadMetrics"', 2)
    desc(22, 'parent_uuid: 20 thread { pid: 2 tid: 2 thread_name: "CrBrowserMain" }', 2)

    def pl(nav, url=None):
        u = ' url: "%s"' % url if url else ''
        return ('[perfetto.protos.ChromeTrackEvent.page_load] { navigation_id: %d%s }'
                % (nav, u))

    def sl(track, ts, end, name, extra, seq=1):
        ev(ts, track, 'TYPE_SLICE_BEGIN',
           'categories: "loading" name: "%s" %s' % (name, extra), seq)
        ev(end, track, 'TYPE_SLICE_END', '', seq)

    F = 'PageLoadMetrics.NavigationToFirstContentfulPaint'
    L = 'PageLoadMetrics.NavigationToLargestContentfulPaint'
    # Browser 1: navigation 1 fully measured, 2 with FCP only, 3 with two
    # LCPs. Slices of one track nest by begin/end order, so the durations
    # are those of the nesting.
    sl(12, 1000, 1500, F, pl(1, 'https://a.com/'))
    sl(12, 1000, 1800, L, pl(1))
    sl(12, 1000, 1300, 'PageLoadMetrics.NavigationToDOMContentLoadedEventFired', pl(1))
    sl(12, 1000, 2000, 'PageLoadMetrics.NavigationToMainFrameOnLoad', pl(1))
    sl(12, 1100, 1200, 'PageLoadMetrics.UserTimingMarkFullyLoaded', pl(1))
    sl(12, 1150, 1250, 'PageLoadMetrics.UserTimingMarkFullyVisible', pl(1))
    sl(12, 1160, 1260, 'PageLoadMetrics.UserTimingMarkInteractive', pl(1))
    sl(12, 3000, 3400, F, pl(2))
    sl(12, 5000, 5300, F, pl(3, 'https://c.com/'))
    sl(12, 5000, 5600, L, pl(3))
    sl(12, 5000, 5700, L, pl(3))
    # An FCP on a thread track is no page load.
    sl(11, 6000, 6100, F, pl(4))
    # Browser 2 reuses navigation id 1.
    sl(21, 2000, 2600, F, pl(1, 'https://b.com/'), 2)
    sl(21, 2000, 2900, L, pl(1), 2)
    # Startups: an activity started and shown, one shown with two causes,
    # one started only, one without an activity id.

    def su(act=None, cause=None):
        f = []
        if act is not None:
            f.append('activity_id: %d' % act)
        if cause:
            f.append('launch_cause: %s' % cause)
        return '[perfetto.protos.ChromeTrackEvent.startup] { %s }' % ' '.join(f)
    sl(11, 100, 200, 'Startup.ActivityStart', su(7))
    sl(12, 150, 900, 'Startup.TimeToFirstVisibleContent2', su(7))
    sl(11, 120, 130, 'Startup.LaunchCause', su(7, 'MAIN_LAUNCHER_ICON'))
    sl(11, 7000, 7100, 'Startup.ActivityStart', su(8))
    sl(11, 7200, 7300, 'Startup.ActivityStart', su())
    sl(12, 8000, 8500, 'Startup.TimeToFirstVisibleContent2', su(9))
    sl(11, 8100, 8110, 'Startup.LaunchCause', su(9, 'NOTIFICATION'))
    sl(11, 8120, 8130, 'Startup.LaunchCause', su(9, 'TWA'))
    sl(22, 300, 400, 'Startup.ActivityStart', su(7), 2)

    # Web content interactions of a renderer (pid 3): on a process track
    # with and without a type, and one on a thread track (left out).

    def interaction(t):
        return '[perfetto.protos.ChromeTrackEvent.web_content_interaction] { %s }' % t
    desc(40, 'process { pid: 3 process_name: "Renderer" }', 3)
    desc(41, 'parent_uuid: 40 name: "Interactions"', 3)
    desc(42, 'parent_uuid: 40 thread { pid: 3 tid: 3 thread_name: "CrRendererMain" }', 3)
    sl(41, 9000, 9100, 'Web Interaction', interaction('type: INTERACTION_CLICK_TAP'), 3)
    sl(41, 9200, 9250, 'Web Interaction', interaction('type: INTERACTION_KEYBOARD'), 3)
    sl(41, 9300, 9320, 'Web Interaction', '', 3)
    sl(42, 9400, 9420, 'Web Interaction', interaction('type: INTERACTION_DRAG'), 3)
    return ''.join(out)


class ChromePageLoadsStartupsTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 'loads.pb', build_trace())

    def test_page_loads(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.page_loads; '
                      'SELECT * FROM chrome_page_loads ORDER BY id', self.trace)
        self.assertEqual(out.splitlines(), [
            '"id","navigation_id","navigation_start_ts","fcp","fcp_ts","lcp","lcp_ts",'
            '"dom_content_loaded_event_ts","load_event_ts","mark_fully_loaded_ts",'
            '"mark_fully_visible_ts","mark_interactive_ts","url","browser_upid"',
            '1,1,1000,1000,2000,800,1800,1000,1000,1100,1150,1160,"https://a.com/",1',
            '2,1,2000,900,2900,600,2600,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]",'
            '"https://b.com/",2',
            '3,2,3000,400,3400,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]",'
            '"[NULL]","[NULL]",1',
            '4,3,5000,700,5700,600,5600,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]",'
            '"https://c.com/",1',
            '5,3,5000,700,5700,300,5300,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]",'
            '"https://c.com/",1',
        ])

    def test_startups(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.startups; '
                      'SELECT * FROM chrome_startups ORDER BY id', self.trace)
        self.assertEqual(out.splitlines(), [
            '"id","activity_id","name","startup_begin_ts","first_visible_content_ts",'
            '"launch_cause","browser_upid"',
            '1,"[NULL]","Startup","[NULL]","[NULL]","[NULL]",1',
            '2,7,"Startup",150,900,"MAIN_LAUNCHER_ICON",1',
            '3,7,"Startup",300,"[NULL]","[NULL]",2',
            '4,8,"Startup",7000,"[NULL]","[NULL]",1',
            '5,9,"Startup",8000,8500,"NOTIFICATION",1',
            '6,9,"Startup",8000,8500,"TWA",1',
        ])

    def test_web_content_interactions(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.web_content_interactions; '
                      'SELECT ts, dur, interaction_type, renderer_upid, '
                      '(SELECT name FROM slice s WHERE s.id = i.id) AS name '
                      'FROM chrome_web_content_interactions i ORDER BY id', self.trace)
        self.assertEqual(out.splitlines(), [
            '"ts","dur","interaction_type","renderer_upid","name"',
            '9000,100,"INTERACTION_CLICK_TAP",3,"Web Interaction"',
            '9200,50,"INTERACTION_KEYBOARD",3,"Web Interaction"',
            '9300,20,"[NULL]",3,"Web Interaction"',
        ])

    def test_interactions(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.interactions; '
                      'SELECT * FROM chrome_interactions WHERE type != '
                      '\'chrome_web_content_interactions\'', self.trace)
        self.assertEqual(out.splitlines(), [
            '"scoped_id","type","name","ts","dur"',
            '1,"chrome_page_loads","PageLoad",1000,800',
            '2,"chrome_page_loads","PageLoad",2000,600',
            '3,"chrome_page_loads","PageLoad",3000,400',
            '4,"chrome_page_loads","PageLoad",5000,600',
            '5,"chrome_page_loads","PageLoad",5000,300',
            '1,"chrome_startups","Startup","[NULL]",0',
            '2,"chrome_startups","Startup",150,750',
            '3,"chrome_startups","Startup",300,0',
            '4,"chrome_startups","Startup",7000,0',
            '5,"chrome_startups","Startup",8000,500',
            '6,"chrome_startups","Startup",8000,500',
        ])
        out = e.query('INCLUDE PERFETTO MODULE chrome.interactions; '
                      'SELECT i.name, i.ts, i.dur, s.name AS slice FROM chrome_interactions i '
                      'JOIN slice s ON s.id = i.scoped_id '
                      'WHERE type = \'chrome_web_content_interactions\'', self.trace)
        self.assertEqual(out.splitlines(), [
            '"name","ts","dur","slice"',
            '"InteractionToFirstPaint",9000,100,"Web Interaction"',
            '"InteractionToFirstPaint",9200,50,"Web Interaction"',
            '"InteractionToFirstPaint",9300,20,"Web Interaction"',
        ])


if __name__ == '__main__':
    e.main()
