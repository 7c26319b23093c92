"""End-to-end: the chrome.tasks stdlib module (chrome_tasks,
chrome_scheduler_tasks, chrome_java_views) on small text-format Chrome
traces; the answers are Perfetto's on the same traces (arg set ids left out,
as weft numbers arg sets its own way)."""
import chrome_trace_text as ct
import weft_e2e as e

SITES = {
    1: ('cc/trees/single_thread_proxy.cc', 'ScheduledActionSendBeginMainFrame'),
    2: ('mojo/public/cpp/bindings/lib/connector.cc', 'PostDispatchNextMessageFromPipe'),
    3: ('base/foo.cc', 'Bar'),
    4: ('mojo/public/cpp/system/simple_watcher.cc', 'Notify'),
    5: ('ipc/ipc_mojo_bootstrap.cc', 'Accept'),
}
MAIN, WORKER = 1, 2
RUN = 'ThreadControllerImpl::RunTask'
CHOREOGRAPHER = 'Looper.dispatch: android.view.Choreographer$FrameHandler'


def b(ts, cat, name, extra='', track=MAIN):
    return (ts, track, 'B', ct.slice_fields(cat, name, extra))


def end(ts, track=MAIN):
    return (ts, track, 'E', '')


def posted(iid):
    return 'task_execution { posted_from_iid: %d }' % iid


def mojo(**info):
    body = ' '.join('%s: %s' % (k, '"%s"' % v if isinstance(v, str) else v)
                    for k, v in info.items())
    return 'chrome_mojo_event_info { %s }' % body


EVENTS = [
    # A UI-thread BeginMainFrame with Java views below it (generic ones and
    # one under a software screenshot).
    b(100, 'toplevel', RUN, posted(1)),
    b(110, 'Java', 'FitWindowsLinearLayout.draw'),
    b(120, 'Java', 'ToolbarLayout.onMeasure'), b(125, 'Java', 'ToolbarButton.draw'),
    end(127), end(130),
    b(135, 'Java', 'ViewResourceAdapter:captureWithSoftwareDraw'),
    b(136, 'Java', 'Omnibox.Layout'), end(138), end(139),
    end(140), end(150),
    # Mojo dispatch tasks: a navigation message and a reply past the
    # watcher's own slice.
    b(200, 'toplevel', RUN, posted(2)),
    b(210, 'toplevel', 'Receive mojo message',
      mojo(mojo_interface_tag='content.mojom.FrameHost', ipc_hash=2168461044)),
    end(220), end(230),
    b(300, 'toplevel', RUN, posted(4)),
    b(305, 'toplevel', 'SimpleWatcher::OnHandleReady'), end(306),
    b(310, 'toplevel', 'Receive mojo reply',
      mojo(mojo_interface_tag='foo.mojom.Bar', ipc_hash=42)),
    end(320), end(330),
    # A Java-only looper task; the view below it is not outermost.
    b(400, 'Java', CHOREOGRAPHER + '(abc)'), b(410, 'Java', 'UrlBar.onLayout'),
    end(420), end(450),
    # A sync call inside a mojo-posted task names no message.
    b(460, 'toplevel', RUN, posted(5)), b(462, 'toplevel', 'Send mojo message'),
    b(464, 'toplevel', 'Receive mojo reply',
      mojo(mojo_interface_tag='x.mojom.Y', ipc_hash=5)),
    end(465), end(466), end(470),
    # Choreographer frames of a toplevel category, with and without views.
    b(600, 'toplevel,Java', CHOREOGRAPHER + '(x)'),
    b(605, 'Java', 'ViewResourceAdapter:captureWithHardwareDraw'),
    b(606, 'Java', 'Zeta.Measure'), end(607),
    b(608, 'Java', 'Alpha.draw'), end(609),
    b(610, 'Java', 'Zeta.draw'), end(612),
    (613, MAIN, 'I', ct.slice_fields('Java', 'Zero')),
    end(620), end(640),
    b(700, 'toplevel', CHOREOGRAPHER + '(y)'), end(750),
    # A toplevel slice under a Java one is a task of its own; one under an
    # unknown "toplevel.*" category is not, nor is that category's slice.
    b(800, 'Java', 'A'), b(810, 'toplevel', 'InnerTop'), end(820), end(830),
    b(850, 'toplevel.flow', 'Odd'), b(855, 'toplevel', 'UnderOdd'), end(856), end(860),
    # Worker thread: a pool task, a viz task, a task without a site, a
    # legacy mojom slice and a legacy dispatch (not a scheduler task).
    b(500, 'toplevel', 'ThreadPool_RunTask', posted(3), WORKER),
    b(510, 'toplevel', 'Nested', track=WORKER), end(520, WORKER), end(550, WORKER),
    b(560, 'toplevel,viz', 'VizTask', track=WORKER), end(570, WORKER),
    b(700, 'toplevel', RUN, track=WORKER), end(710, WORKER),
    b(800, 'mojom', 'viz.mojom.Compositor', track=WORKER), end(810, WORKER),
    b(900, 'toplevel', 'Connector::DispatchMessage',
      mojo(watcher_notify_interface_tag='old.mojom.If'), WORKER),
    b(905, 'toplevel', 'ScopedSetIpcHash', mojo(ipc_hash=77), WORKER),
    end(906, WORKER), end(910, WORKER),
    b(1000, 'toplevel', 'Unfinished'),
]


class ChromeTasksTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        # Packets of one sequence go in timestamp order.
        events = sorted(EVENTS, key=lambda ev: ev[0])
        text = ct.trace({MAIN: 'CrBrowserMain', WORKER: 'ThreadPoolForegroundWorker'},
                        events, SITES)
        self.trace = e.textproto_trace(self.dir, 'tasks.pb', text)

    def query(self, sql):
        return e.query('INCLUDE PERFETTO MODULE chrome.tasks; ' + sql, self.trace)

    def test_task_names_and_types(self):
        out = self.query('SELECT s.name AS slice, t.name, t.task_type, t.thread_name, '
                         't.process_name, t.ts, t.dur, t.category, t.full_name = t.name AS same '
                         'FROM chrome_tasks t JOIN slice s USING (id) ORDER BY t.ts, t.utid')
        rows = out.splitlines()
        self.assertEqual(rows[0], '"slice","name","task_type","thread_name","process_name",'
                         '"ts","dur","category","same"')
        self.assertEqual(rows[1:], [
            '"ThreadControllerImpl::RunTask","SingleThreadProxy::BeginMainFrame'
            '(java_views=Omnibox,ToolbarLayout)","ui_thread_begin_main_frame",'
            '"CrBrowserMain","Browser",100,50,"toplevel",1',
            '"ThreadControllerImpl::RunTask","FrameHost::BeginNavigation (unknown frame type)",'
            '"navigation_task","CrBrowserMain","Browser",200,30,"toplevel",1',
            '"ThreadControllerImpl::RunTask","foo.mojom.Bar reply (hash=42)","mojo",'
            '"CrBrowserMain","Browser",300,30,"toplevel",1',
            '"%s(abc)","%s(abc)","java","CrBrowserMain","Browser",400,50,"Java",1'
            % (CHOREOGRAPHER, CHOREOGRAPHER),
            '"ThreadControllerImpl::RunTask","RunTask(posted_from=ipc/ipc_mojo_bootstrap.cc:'
            'Accept)","scheduler","CrBrowserMain","Browser",460,10,"toplevel",1',
            '"ThreadPool_RunTask","RunTask(posted_from=base/foo.cc:Bar)","scheduler",'
            '"ThreadPoolForegroundWorker","Browser",500,50,"toplevel",1',
            '"VizTask","VizTask","other","ThreadPoolForegroundWorker","Browser",560,10,'
            '"toplevel,viz",1',
            '"%s(x)","Choreographer(java_views=Alpha,Zeta)","choreographer","CrBrowserMain",'
            '"Browser",600,40,"toplevel,Java",1' % CHOREOGRAPHER,
            '"%s(y)","Choreographer(java_views=)","choreographer","CrBrowserMain",'
            '"Browser",700,50,"toplevel",1' % CHOREOGRAPHER,
            '"ThreadControllerImpl::RunTask","RunTask(posted_from=)","scheduler",'
            '"ThreadPoolForegroundWorker","Browser",700,10,"toplevel",1',
            '"A","A","java","CrBrowserMain","Browser",800,30,"Java",1',
            '"InnerTop","InnerTop","other","CrBrowserMain","Browser",810,10,"toplevel",1',
            '"Connector::DispatchMessage","Connector::DispatchMessage","other",'
            '"ThreadPoolForegroundWorker","Browser",900,10,"toplevel",1',
            '"Unfinished","Unfinished","other","CrBrowserMain","Browser",1000,-1,"toplevel",1',
        ])

    def test_scheduler_tasks(self):
        out = self.query('SELECT ts, type, name, thread_name, depth, parent_id, posted_from '
                         'FROM chrome_scheduler_tasks ORDER BY ts, utid')
        site = lambda i: '%s:%s' % SITES[i]
        self.assertEqual(out.splitlines()[1:], [
            '%d,"chrome_scheduler_tasks","RunTask(posted_from=%s)","%s",0,"[NULL]","%s"'
            % (ts, site(i), thread, site(i))
            for ts, i, thread in [(100, 1, 'CrBrowserMain'), (200, 2, 'CrBrowserMain'),
                                  (300, 4, 'CrBrowserMain'), (460, 5, 'CrBrowserMain'),
                                  (500, 3, 'ThreadPoolForegroundWorker')]
        ] + ['700,"chrome_scheduler_tasks","RunTask(posted_from=)",'
             '"ThreadPoolForegroundWorker",0,"[NULL]","[NULL]"'])

    def test_java_views(self):
        out = self.query('SELECT v.filtered_name, v.is_software_screenshot, '
                         'v.is_hardware_screenshot, s.name FROM chrome_java_views v '
                         'JOIN slice s ON s.id = v.slice_id ORDER BY s.ts')
        self.assertEqual(out.splitlines()[1:], [
            '"ToolbarLayout",0,0,"ToolbarLayout.onMeasure"',
            '"Omnibox",1,0,"Omnibox.Layout"',
            '"%s(abc)",0,0,"%s(abc)"' % (CHOREOGRAPHER, CHOREOGRAPHER),
            '"Zeta",0,1,"Zeta.Measure"',
            '"Alpha",0,1,"Alpha.draw"',
            '"Zeta",0,1,"Zeta.draw"',
            '"A",0,0,"A"',
        ])


if __name__ == '__main__':
    e.main()
