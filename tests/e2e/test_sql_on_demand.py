"""End-to-end: views and the stats table are built on first use (so that an
instance costs little until queried); every query answers as if they had
all existed from the start."""
import weft_e2e as e

TRACE = ('[{"ph":"X","pid":1,"tid":2,"ts":1,"dur":5,"name":"a"},'
         '{"ph":"X","pid":1,"tid":2,"ts":2,"dur":1,"name":"b"},'
         '{"ph":"C","pid":1,"ts":3,"name":"c","args":{"v":7}}]')


class OnDemandTest(e.TempDirTest):
    def query(self, sql, *flags):
        return e.query(sql, e.write_temp(self.dir, 't.json', TRACE), options=flags)

    def test_views_and_their_dependencies(self):
        self.assertEqual(self.query('select name, depth from slices order by ts'),
                         '"name","depth"\n"a",0\n"b",1\n')
        self.assertEqual(self.query('select count(*) as n from sched'), '"n"\n0\n')
        self.assertEqual(self.query('SELECT "name" FROM [COUNTER_TRACK]'),
                         '"name"\n"c v"\n')

    def test_schema_lists_every_view(self):
        # Views over several tables are SQL views, created for a schema
        # read; one-table views are virtual tables (no schema entry), which
        # the table lists show as views.
        out = self.query("select count(*) as n from sqlite_schema where type = 'view' "
                         "and name in ('counters', 'gpu_slice', 'frame_slice')")
        self.assertEqual(out, '"n"\n3\n')
        out = self.query("select name, __intrinsic_table_is_view(name) as v from "
                         "pragma_module_list where name in ('slice', 'thread', 'sched', "
                         "'cpu_available_frequencies', 'trace_diagnostics', "
                         "'__intrinsic_slice') order by name")
        self.assertEqual(out, '"name","v"\n"__intrinsic_slice",0\n'
                         '"cpu_available_frequencies",1\n"sched",1\n"slice",1\n'
                         '"thread",1\n"trace_diagnostics",1\n')

    def test_user_sql_over_views(self):
        out = self.query('create view v as select name from slice; '
                         'create table t as select * from v; '
                         'select count(*) as n from t')
        self.assertEqual(out, '"n"\n2\n')
        # A name taken by a view is taken from the start.
        path = e.write_temp(self.dir, 't.json', TRACE)
        rc, out, err = e.run('-Q', 'create table thread(x)', path)
        self.assertEqual(rc, 1)
        self.assertIn('already exists', err)

    def test_transactions(self):
        out = self.query('begin; select count(*) as n from slice; rollback; '
                         'select count(*) as n from slice; savepoint s; '
                         'select count(*) as m from thread; rollback to s; release s; '
                         'select count(*) as m from thread')
        self.assertEqual(out, '"n"\n2\n\n"n"\n2\n\n"m"\n3\n\n"m"\n3\n')

    def test_module_include(self):
        out = self.query('INCLUDE PERFETTO MODULE slices.with_context; '
                         'select name, thread_name is null as x from thread_slice order by ts')
        self.assertEqual(out, '"name","x"\n"a",1\n"b",1\n')

    def test_stats_filled_once_with_every_row(self):
        out = self.query("select count(*) as n from stats; "
                         "select count(*) as n from stats where severity = 'data_loss'; "
                         "create view s as select * from stats; select count(*) as n from s")
        n = out.split('\n')[1]
        self.assertGreater(int(n), 250)
        self.assertEqual(out.split('\n')[-2], n)
        # A per-trace stat is the trace file's (machine 0, trace 0).
        self.assertEqual(self.query("select value, idx is null as i, machine_id, trace_id "
                                    "from stats where name = 'json_parser_failure'"),
                         '"value","i","machine_id","trace_id"\n0,1,0,0\n')


if __name__ == '__main__':
    e.main()
