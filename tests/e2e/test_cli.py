"""End-to-end: the weft command's flags, output format and errors."""
import os
import select
import signal
import subprocess
import time
import weft_e2e as e


class CliTest(e.TempDirTest):
    def test_output_format(self):
        rc, out, err = e.run('-Q', "select 1 as x, null as y, 'a' as z, 0.5 as w")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"x","y","z","w"\n1,"[NULL]","a",0.500000\n')

    def test_blob_and_negative(self):
        rc, out, _ = e.run('-Q', "select x'00ff' as b, -12 as n, 1700000000000000000 as big")
        self.assertEqual(out, '"b","n","big"\n"<raw bytes>",-12,1700000000000000000\n')

    def test_long_reals_are_cut_to_255_characters(self):
        # "%f" of 1e300 has 308 characters; the shell prints the first 255
        rc, out, _ = e.run('-Q', 'select 1e300 as a, -1e200 as b')
        a, b = out.split('\n')[1].split(',')
        self.assertEqual(a, ('%f' % 1e300)[:255])
        self.assertEqual(b, '%f' % -1e200)

    def test_multiple_result_sets(self):
        q = e.write_temp(self.dir, 'q.sql',
                         'create table t(a); insert into t values (1),(2);\n'
                         'select a from t;\nselect count(*) as c from t where a > 5;\n')
        rc, out, err = e.run('-q', q)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"a"\n1\n2\n\n"c"\n0\n')

    def test_empty_result_prints_header(self):
        rc, out, _ = e.run('-Q', 'select 1 as a where 0')
        self.assertEqual(out, '"a"\n')

    def test_builtin_tables_run(self):
        for table in ('stats', 'metadata', 'machine', 'trace_file',
                      'trace_bounds', '__intrinsic_trace_file', 'clock_snapshot'):
            rc, out, err = e.run('-Q', f'select * from {table} limit 1')
            self.assertEqual(rc, 0, f'{table}: {err}')
            self.assertTrue(out.startswith('"'), table)

    def test_stats_lists_known_stats_with_zero(self):
        rc, out, _ = e.run('-Q', "select value from stats where name = "
                           "'trace_sorter_negative_timestamp_dropped'")
        self.assertEqual(out, '"value"\n0\n')

    def test_host_machine_row(self):
        rc, out, _ = e.run('-Q', 'select id, raw_id from machine')
        self.assertEqual(out, '"id","raw_id"\n0,0\n')

    def test_sql_error(self):
        rc, out, err = e.run('-Q', 'select * from no_such_table')
        self.assertNotEqual(rc, 0)
        self.assertIn('no such table', err)
        # Perfetto's traceback: the statement's source, line and column,
        # the statement with a caret under the error, then the message.
        lines = err.strip().splitlines()
        self.assertIn('Traceback (most recent call last):', lines[0])
        self.assertEqual(lines[1:], ['  File "stdin" line 1 col 1',
                                     '    select * from no_such_table',
                                     '    ^',
                                     'no such table: no_such_table'])
        rc, out, err = e.run('-Q', 'select 1;\nselect nope from slice')
        self.assertEqual(err.strip().splitlines()[1:], [
            '  File "stdin" line 2 col 8', '    select nope from slice',
            '           ^', 'no such column: nope'])

    def test_sigbus_reports_a_shrunk_input(self):
        """A mapped input that shrinks mid-load raises SIGBUS: weft says so
        and exits 1 instead of crashing (signalled here once the handler is
        in place: while the shell waits in read(2) on stdin, which main
        reaches only after installing it; a sanitizer runtime catches SIGBUS
        itself during start-up, so SigCgt alone does not tell)."""
        trace = e.write_temp(self.dir, 't.json', '{"traceEvents":[]}')
        proc = subprocess.Popen([e.WEFT, trace], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with open('/proc/%d/syscall' % proc.pid) as f:
                    call = f.read().split()
            except OSError:
                call = []
            if call[:2] == ['0', '0x0']:  # read(0, ...)
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGBUS)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn(b'an input file shrank while it was being read', err)

    def test_missing_file_names_it(self):
        rc, _, err = e.run('-Q', 'select 1', os.path.join(self.dir, 'nope.pftrace'))
        self.assertNotEqual(rc, 0)
        self.assertIn('nope.pftrace', err)

    def test_unknown_format_names_file(self):
        path = e.write_temp(self.dir, 'junk.bin', b'\x00\x01\x02garbage')
        rc, _, err = e.run('-Q', 'select 1', path)
        self.assertNotEqual(rc, 0)
        self.assertIn('junk.bin', err)

    def test_help_version_and_compat_flags(self):
        rc, out, _ = e.run('--help')
        self.assertEqual(rc, 0)
        self.assertIn('usage: weft', out)
        rc, out, _ = e.run('--version')
        self.assertTrue(out.startswith('weft '))
        rc, out, _ = e.run('--analyze-trace-proto-content', '--crop-track-events',
                           '--extra-checks', '-Q', 'select 2 as two')
        self.assertEqual(out, '"two"\n2\n')
        rc, _, err = e.run('--bogus')
        self.assertEqual(rc, 2)

    def test_perf_file(self):
        perf = os.path.join(self.dir, 'perf.txt')
        rc, _, _ = e.run('--perf-file', perf, '-Q', 'select 1')
        self.assertEqual(rc, 0)
        with open(perf) as f:
            load_ns, query_ns = f.read().strip().split(',')
        self.assertGreaterEqual(int(load_ns), 0)
        self.assertGreaterEqual(int(query_ns), 0)

    def test_interactive_shell(self):
        rc, out, _ = e.run(stdin=b'select 41 + 1 as answer;\n.quit\n')
        self.assertEqual(rc, 0)
        self.assertIn('answer', out)
        self.assertIn('42', out)

    def test_shell_answers_each_query_through_a_pipe(self):
        """A program driving the shell through pipes gets each result while
        the shell waits for the next query (stdout is flushed per query)."""
        proc = subprocess.Popen([e.WEFT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=dict(os.environ, HOME=self.dir))
        try:
            got = b''
            for n in (1, 2):
                proc.stdin.write(b'select %d * 21 as answer;\n' % n)
                proc.stdin.flush()
                deadline = time.time() + 30
                while got.count(b'Query executed') < n and time.time() < deadline:
                    ready, _, _ = select.select([proc.stdout], [], [], 1)
                    if ready:
                        got += os.read(proc.stdout.fileno(), 4096)
                self.assertEqual(got.count(b'Query executed'), n, got)
                self.assertIn(b'\n%d ' % (21 * n), got)
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()
            proc.stderr.close()


if __name__ == '__main__':
    e.main()
