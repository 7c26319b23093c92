"""End-to-end: the chrome.scroll_jank.utils stdlib module on a text-format
Chrome trace of long-task slices; the answers are Perfetto's on the same
trace (its private helpers, named _is_janky_frame and _jank_budget there,
answered the same)."""
import chrome_trace_text as ct
import weft_e2e as e

LONG_TASKS = 'disabled-by-default-scheduler.long_tasks'


def b(ts, cat, name, extra=''):
    return (ts, 1, 'B', ct.slice_fields(cat, name, extra))


def end(ts):
    return (ts, 1, 'E', '')


def mojo(body):
    return 'chrome_mojo_event_info { %s }' % body


EVENTS = [
    b(100, LONG_TASKS, 'LongTaskTracker',
      mojo('mojo_interface_tag: "a.mojom.B" ipc_hash: 12 is_reply: true')), end(200),
    b(300, LONG_TASKS, 'LongTaskTracker',
      mojo('mojo_interface_tag: "c.mojom.D" ipc_hash: 13 is_reply: false')), end(400),
    b(500, 'scheduler.long_tasks,toplevel', 'LongTaskTracker'), end(600),
    b(700, 'toplevel', 'LongTaskTracker', mojo('ipc_hash: 1')), end(800),
    b(900, LONG_TASKS, 'InterestingTask', mojo('ipc_hash: 5')), end(1000),
]


class ChromeScrollJankUtilsTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        text = ct.trace({1: 'CrBrowserMain'}, EVENTS)
        self.trace = e.textproto_trace(self.dir, 'long_tasks.pb', text)

    def query(self, sql):
        return e.query('INCLUDE PERFETTO MODULE chrome.scroll_jank.utils; ' + sql,
                       self.trace).splitlines()

    def test_long_task_slices(self):
        self.assertEqual(self.query(
            "SELECT * FROM chrome_select_long_task_slices('LongTaskTracker')"), [
            '"interface_name","ipc_hash","message_type","id"',
            '"a.mojom.B",12,"reply",0',
            '"c.mojom.D",13,"message",1',
            '"[NULL]","[NULL]","message",2',
        ])
        self.assertEqual(self.query(
            "SELECT * FROM chrome_select_long_task_slices('InterestingTask')"), [
            '"interface_name","ipc_hash","message_type","id"',
            '"[NULL]",5,"message",4',
        ])

    def test_jank_helpers(self):
        self.assertEqual(self.query(
            'SELECT _chrome_jank_budget(3.0, 1.0, 2.0) AS a, '
            '_chrome_jank_budget(3.0, NULL, 2.0) AS b, '
            '_chrome_jank_budget(3.0, 1.0, NULL) AS c, '
            '_chrome_jank_budget(3.0, NULL, NULL) AS d'), [
            '"a","b","c","d"', '1.500000,0.500000,1.500000,"[NULL]"'])
        self.assertEqual(self.query(
            'SELECT _chrome_is_janky_frame(1, 1, 100, 50, 200, 2.0, 1.4) AS j1, '
            '_chrome_is_janky_frame(1, 1, 100, 50, 200, 2.0, 1.5) AS j2, '
            '_chrome_is_janky_frame(1, 2, 100, 50, 200, 3.0, 1.0) AS j3, '
            '_chrome_is_janky_frame(1, 1, 300, 50, 200, 3.0, 1.0) AS j4, '
            '_chrome_is_janky_frame(1, 1, NULL, 50, 200, 3.0, 1.0) AS j5'), [
            '"j1","j2","j3","j4","j5"', '1,0,0,0,0'])


if __name__ == '__main__':
    e.main()
