"""End-to-end: the chrome.speedometer, chrome.speedometer_2_1 and
chrome.speedometer_3 stdlib modules on Chrome JSON traces of Speedometer
marks; the answers are Perfetto's on the same traces."""
import json

import weft_e2e as e



def mark(name, ts, tid=1):
    return {'ph': 'I', 's': 't', 'cat': 'blink.user_timing', 'name': name,
            'ts': ts, 'pid': 1, 'tid': tid}


def span(name, ts, dur, tid=1, cat='blink.user_timing'):
    return {'ph': 'X', 'cat': cat, 'name': name, 'ts': ts, 'dur': dur, 'pid': 1, 'tid': tid}


def speedometer_2_1():
    """Two iterations of three tests over two suites (marks in us); the
    second iteration of Elm's DeletingItems lacks its async-end mark, and a
    mark of another category is ignored."""
    events = [{'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 2,
               'args': {'name': 'CrRendererMain'}}]
    t = 1000
    for it in range(2):
        for suite, test in (('React-TodoMVC', 'Adding100Items'),
                            ('React-TodoMVC', 'DeletingAllItems'),
                            ('Elm-TodoMVC', 'DeletingItems')):
            base = '%s.%s-' % (suite, test)
            events.append(mark(base + 'start', t, 2))
            events.append(mark(base + 'sync-end', t + 30 + it * 7, 2))
            if not (it == 1 and suite == 'Elm-TodoMVC'):
                events.append(mark(base + 'async-end', t + 45 + it * 11, 2))
            t += 100
    events.append(span('React-TodoMVC.Adding100Items-start', 5000, 0, 2, 'other'))
    return json.dumps({'traceEvents': events})


def speedometer_3():
    """Iteration marks "iteration-0", "iteration-1", plus "iteration-01" and
    "iteration-x" (not iterations); measures inside them and one outside."""
    events = [{'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 3,
               'args': {'name': 'CrRendererMain'}}]
    events += [span('iteration-0', 1000, 1000, 3), span('iteration-1', 3000, 1000, 3),
               span('iteration-01', 5000, 100, 3), span('iteration-x', 6000, 100, 3)]
    for it, base in ((0, 1000), (1, 3000)):
        events += [
            mark('TodoMVC-Vue.Adding100Items-sync-start', base + 10, 3),
            span('TodoMVC-Vue.Adding100Items-sync', base + 10, 100 + it * 20, 3),
            span('TodoMVC-Vue.Adding100Items-async', base + 200, 50, 3),
            span('Charts-chartjs.Draw scatter-sync', base + 300, 300, 3),
            span('Editor-TipTap.Long-async', base + 700, 80 + it, 3),
        ]
    events += [span('TodoMVC-Vue.Adding100Items-sync', 5010, 10, 3),
               span('TodoMVC-Vue.Adding100Items-sync', 9000, 10, 3)]
    return json.dumps({'traceEvents': events})


M21 = ('INCLUDE PERFETTO MODULE chrome.speedometer_2_1; SELECT * FROM '
       'chrome_speedometer_2_1_measure ORDER BY ts, name')
I21 = ('INCLUDE PERFETTO MODULE chrome.speedometer_2_1; SELECT *, '
       'chrome_speedometer_2_1_score() AS s, '
       'chrome_speedometer_2_1_renderer_main_utid() AS u FROM '
       'chrome_speedometer_2_1_iteration')
M3 = ('INCLUDE PERFETTO MODULE chrome.speedometer_3; SELECT * FROM '
      'chrome_speedometer_3_measure ORDER BY ts, name')
I3 = ('INCLUDE PERFETTO MODULE chrome.speedometer_3; SELECT *, '
      'chrome_speedometer_3_score() AS s, '
      'chrome_speedometer_3_renderer_main_utid() AS u FROM '
      'chrome_speedometer_3_iteration')
ANY = ('INCLUDE PERFETTO MODULE chrome.speedometer; SELECT (SELECT count() '
       'FROM chrome_speedometer_measure) AS measures, (SELECT '
       'group_concat(name) FROM chrome_speedometer_iteration) AS iterations, '
       'chrome_speedometer_score() AS score, '
       'chrome_speedometer_renderer_main_utid() AS utid')


class ChromeSpeedometerTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        v21, v3 = speedometer_2_1(), speedometer_3()
        both = json.dumps({'traceEvents': json.loads(v21)['traceEvents']
                           + json.loads(v3)['traceEvents']})
        self.v21 = e.write_temp(self.dir, 'v21.json', v21)
        self.v3 = e.write_temp(self.dir, 'v3.json', v3)
        self.both = e.write_temp(self.dir, 'both.json', both)

    def query(self, sql, trace):
        return e.query(sql, trace).splitlines()

    def test_speedometer_2_1(self):
        self.assertEqual(self.query(M21, self.v21), [
            '"ts","dur","name","iteration","suite_name","test_name","measure_type"',
            '1000000,30000,"React-TodoMVC.Adding100Items-sync",1,"React-TodoMVC","Adding100Items","sync"',
            '1030000,15000,"React-TodoMVC.Adding100Items-async",1,"React-TodoMVC","Adding100Items","async"',
            '1100000,30000,"React-TodoMVC.DeletingAllItems-sync",1,"React-TodoMVC","DeletingAllItems","sync"',
            '1130000,15000,"React-TodoMVC.DeletingAllItems-async",1,"React-TodoMVC","DeletingAllItems","async"',
            '1200000,30000,"Elm-TodoMVC.DeletingItems-sync",1,"Elm-TodoMVC","DeletingItems","sync"',
            '1230000,15000,"Elm-TodoMVC.DeletingItems-async",1,"Elm-TodoMVC","DeletingItems","async"',
            '1300000,37000,"React-TodoMVC.Adding100Items-sync",2,"React-TodoMVC","Adding100Items","sync"',
            '1337000,19000,"React-TodoMVC.Adding100Items-async",2,"React-TodoMVC","Adding100Items","async"',
            '1400000,37000,"React-TodoMVC.DeletingAllItems-sync",2,"React-TodoMVC","DeletingAllItems","sync"',
            '1437000,19000,"React-TodoMVC.DeletingAllItems-async",2,"React-TodoMVC","DeletingAllItems","async"',
        ])
        self.assertEqual(self.query(I21, self.v21), [
            '"ts","dur","name","iteration","geomean","score","s","u"',
            '1000000,245000,"iteration-1",1,0.063640,314269.680527,246420.554549,2',
            '1300000,156000,"iteration-2",2,0.112000,178571.428571,246420.554549,2',
        ])

    def test_speedometer_3(self):
        self.assertEqual(self.query(M3, self.v3), [
            '"ts","dur","name","iteration","suite_name","test_name","measure_type"',
            '1010000,100000,"TodoMVC-Vue.Adding100Items-sync",0,"TodoMVC-Vue","Adding100Items","sync"',
            '1200000,50000,"TodoMVC-Vue.Adding100Items-async",0,"TodoMVC-Vue","Adding100Items","async"',
            '1300000,300000,"Charts-chartjs.Draw scatter-sync",0,"Charts-chartjs","Draw scatter","sync"',
            '1700000,80000,"Editor-TipTap.Long-async",0,"Editor-TipTap","Long","async"',
            '3010000,120000,"TodoMVC-Vue.Adding100Items-sync",1,"TodoMVC-Vue","Adding100Items","sync"',
            '3200000,50000,"TodoMVC-Vue.Adding100Items-async",1,"TodoMVC-Vue","Adding100Items","async"',
            '3300000,300000,"Charts-chartjs.Draw scatter-sync",1,"Charts-chartjs","Draw scatter","sync"',
            '3700000,81000,"Editor-TipTap.Long-async",1,"Editor-TipTap","Long","async"',
            '5010000,10000,"TodoMVC-Vue.Adding100Items-sync",1,"TodoMVC-Vue","Adding100Items","sync"',
        ])
        self.assertEqual(self.query(I3, self.v3), [
            '"ts","dur","name","iteration","geomean","score","s","u"',
            '1000000,1000000,"iteration-0",0,0.153262,6524.779402,6251.379861,2',
            '3000000,1000000,"iteration-1",1,0.163541,6114.680091,6251.379861,2',
            '5000000,100000,"iteration-01",1,0.163541,6114.680091,6251.379861,2',
        ])

    def test_version_with_more_measures(self):
        self.assertEqual(self.query(ANY, self.v21), [
            '"measures","iterations","score","utid"',
            '10,"iteration-1,iteration-2",246420.554549,2',
        ])
        self.assertEqual(self.query(ANY, self.v3), [
            '"measures","iterations","score","utid"',
            '9,"iteration-0,iteration-1,iteration-01",6251.379861,2',
        ])
        self.assertEqual(self.query(ANY, self.both), [
            '"measures","iterations","score","utid"',
            '10,"iteration-1,iteration-2",246420.554549,2',
        ])


if __name__ == '__main__':
    e.main()
