"""End-to-end: the chrome.vsync_intervals and chrome.histograms stdlib
modules on a text-format Chrome trace; the answers are Perfetto's on the
same trace."""
import weft_e2e as e
P = '''packet {{ trusted_packet_sequence_id: 1 timestamp: 0
  track_descriptor {{ uuid: {uuid} {body} }} }}
'''
E = '''packet {{ trusted_packet_sequence_id: 1 timestamp: {ts}
  track_event {{ type: {type} track_uuid: {track} {fields} }} }}
'''


def build():
    """Two VSync tracks (a thread of the browser, a process track of the
    GPU process) and histogram samples on a thread track, on a process
    track, of another category and on a global track."""
    out = [P.format(uuid=10, body='process { pid: 1 process_name: "Browser" }'),
           P.format(uuid=11, body='parent_uuid: 10 thread { pid: 1 tid: 1 '
                                  'thread_name: "CrBrowserMain" }'),
           P.format(uuid=20, body='process { pid: 2 process_name: "Gpu" }'),
           P.format(uuid=21, body='parent_uuid: 20 name: "VSyncs"'),
           P.format(uuid=30, body='name: "Global"')]
    events = []

    def instant(ts, track, cat, name, extra=''):
        fields = 'categories: "%s" name: "%s" %s' % (cat, name, extra)
        events.append((ts, E.format(ts=ts, type='TYPE_INSTANT', track=track, fields=fields)))

    def vsync(ts, track, dur):
        events.append((ts, E.format(ts=ts, type='TYPE_SLICE_BEGIN', track=track,
                                    fields='categories: "Java" name: "VSync"')))
        events.append((ts + dur, E.format(ts=ts + dur, type='TYPE_SLICE_END', track=track,
                                          fields='')))

    for ts in (1000, 17000, 33000, 50000):
        vsync(ts, 11, 100)
    for ts in (2000, 13000, 24000):
        vsync(ts, 21, 50)

    def sample(name, value):
        return 'chrome_histogram_sample { name: "%s" sample: %d }' % (name, value)

    hist = 'disabled-by-default-histogram_samples'
    instant(5000, 11, hist, 'HistogramSample', sample('Memory.Total', 42))
    instant(6000, 21, hist, 'HistogramSample', sample('Gpu.Frames', -3))
    instant(7000, 11, 'other', 'HistogramSample', sample('Ignored', 1))
    instant(8000, 30, hist, 'HistogramSample', sample('OnGlobal', 2))
    instant(9000, 11, hist, 'HistogramSample', 'chrome_histogram_sample { name_hash: 99 }')
    events.sort(key=lambda e: e[0])
    return ''.join(out) + ''.join(e[1] for e in events)


class ChromeVsyncHistogramsTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 'vsync.pb', build())

    def test_vsync_intervals(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.vsync_intervals; '
                      'SELECT ts, dur, time_to_next_vsync, '
                      '(SELECT name FROM slice WHERE id = slice_id) AS name '
                      'FROM chrome_vsync_intervals', self.trace)
        self.assertEqual(out.splitlines(), [
            '"ts","dur","time_to_next_vsync","name"',
            '1000,100,16000,"VSync"', '17000,100,16000,"VSync"',
            '33000,100,17000,"VSync"', '50000,100,"[NULL]","VSync"',
            '2000,50,11000,"VSync"', '13000,50,11000,"VSync"', '24000,50,"[NULL]","VSync"',
        ])

    def test_average_vsync_interval(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.vsync_intervals; SELECT '
                      'chrome_calculate_avg_vsync_interval(0, 100000) AS a, '
                      'chrome_calculate_avg_vsync_interval(1000, 33000) AS b, '
                      'chrome_calculate_avg_vsync_interval(50000, 60000) AS c, '
                      'chrome_calculate_avg_vsync_interval(999, 1001) AS d', self.trace)
        self.assertEqual(out, '"a","b","c","d"\n'
                         '14200.000000,12666.666667,16666666.666667,16000.000000\n')

    def test_histograms(self):
        out = e.query('INCLUDE PERFETTO MODULE chrome.histograms; '
                      'SELECT * FROM chrome_histograms', self.trace)
        self.assertEqual(out.splitlines(), [
            '"name","value","ts","thread_name","utid","tid","process_name","upid","pid"',
            '"Memory.Total",42,5000,"CrBrowserMain",1,1,"Browser",1,1',
            '"[NULL]","[NULL]",9000,"CrBrowserMain",1,1,"Browser",1,1',
            '"Gpu.Frames",-3,6000,"[NULL]","[NULL]","[NULL]","Gpu",2,2',
        ])


if __name__ == '__main__':
    e.main()
