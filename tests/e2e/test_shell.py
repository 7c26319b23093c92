"""End-to-end: the interactive shell, driven through a pty (Ctrl-C) or
pipes: interrupting a query, history, .tables and the output settings."""
import json
import os
import pty
import select
import signal
import subprocess
import time
import weft_e2e as e


def slices_trace(directory, count=50):
    events = [{'ph': 'X', 'name': 's%d' % i, 'ts': i * 10, 'dur': 5, 'pid': 1,
               'tid': 1} for i in range(count)]
    return e.write_temp(directory, 'slices.json', json.dumps({'traceEvents': events}))


class PtyShell:
    """weft's shell on a pseudo-terminal: what is typed goes through the
    terminal driver, so Ctrl-C (\\x03) raises SIGINT as for a person."""

    def __init__(self, trace, home):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ['HOME'] = home
            os.execv(e.WEFT, [e.WEFT, trace])
        self.seen = b''

    def read_until(self, token, timeout=30):
        deadline = time.time() + timeout
        while token not in self.seen and time.time() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    break
        return token in self.seen

    def send(self, text):
        os.write(self.fd, text)

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


class ShellTest(e.TempDirTest):
    def shell(self, commands, trace=None):
        """Runs the shell with `commands` on standard input; its stdout."""
        rc, out, err = e.run(*([trace] if trace else []), stdin=commands.encode(),
                             env={'HOME': self.dir})
        self.assertEqual(rc, 0, err)
        return out

    def test_ctrl_c_interrupts_a_query_and_keeps_the_trace(self):
        trace = slices_trace(self.dir)
        sh = PtyShell(trace, self.dir)
        try:
            self.assertTrue(sh.read_until(b'> '), sh.seen)
            sh.send(b'with recursive r(n) as (select 1 union all select n + 1 from r) '
                    b'select count(*) from r, slice;\n')
            time.sleep(1.0)
            sh.send(b'\x03')
            self.assertTrue(sh.read_until(b'Query interrupted'), sh.seen)
            sh.send(b"select count(*) as n from slice where name like 's%';\n")
            self.assertTrue(sh.read_until(b'(1 row)'), sh.seen)
            self.assertIn(b'\r\n50\r\n', sh.seen)
            # At the idle prompt (once it is shown again), Ctrl-C leaves as
            # usual.
            mark = sh.seen.rindex(b'(1 row)')
            deadline = time.time() + 30
            while b'> ' not in sh.seen[mark:] and time.time() < deadline:
                sh.read_until(b'\x00', timeout=0.2)
            time.sleep(0.2)
            sh.send(b'\x03')
            deadline = time.time() + 10
            while time.time() < deadline:
                pid, _ = os.waitpid(sh.pid, os.WNOHANG)
                if pid:
                    break
                time.sleep(0.1)
            self.assertEqual(pid, sh.pid, 'the shell did not leave on Ctrl-C at the prompt')
            sh.pid = None
        finally:
            if sh.pid:
                sh.close()
            else:
                os.close(sh.fd)

    def test_history_is_saved_after_each_command(self):
        proc = subprocess.Popen([e.WEFT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=dict(os.environ, HOME=self.dir))
        history = os.path.join(self.dir, '.weft_history')
        try:
            proc.stdin.write(b'select 6 * 7 as answer;\n')
            proc.stdin.flush()
            deadline = time.time() + 30
            text = ''
            while 'answer' not in text and time.time() < deadline:
                time.sleep(0.1)
                if os.path.exists(history):
                    with open(history, errors='replace') as f:
                        text = f.read()
            self.assertIn('answer', text)
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()
            proc.stderr.close()

    def test_tables_lists_tables_and_views(self):
        names = self.shell('.tables\n').split('\n')
        for table in ('slice', 'thread', 'process', 'track', 'args', 'flow', 'machine',
                      'stats', 'metadata', 'trace_bounds', '__intrinsic_slice'):
            self.assertIn(table, names)
        for not_table in ('json_each', 'ancestor_slice', 'span_join', 'fts3tokenize'):
            self.assertNotIn(not_table, names)

    def test_modes(self):
        out = self.shell(".mode csv\nselect 1 as a, 2.5 as b, null as c, 'x,\"y' as d;\n"
                         ".mode line\nselect 1 as a, 2 as bb;\n")
        self.assertIn('a,b,c,d\n1,2.5,,"x,""y"\n', out)
        self.assertIn(' a = 1\nbb = 2\n', out)

    def test_maxrows_cuts_with_a_marker(self):
        out = self.shell('.maxrows 3\nwith recursive r(n) as (select 1 union all '
                         'select n + 1 from r where n < 10) select n from r;\n')
        self.assertIn('... 7 more rows not shown (.maxrows 3)', out)
        self.assertIn('(10 rows)', out)
        self.assertNotIn('\n4 ', out)

    def test_default_maxrows_is_ten_thousand(self):
        out = self.shell('with recursive r(n) as (select 1 union all '
                         'select n + 1 from r where n < 10005) select n from r;\n')
        self.assertIn('... 5 more rows not shown (.maxrows 10000)', out)

    def test_width_and_wide_cells_are_cut_with_a_marker(self):
        out = self.shell(".width 6 2\nselect 'abcdefghij' as long, 1 as n;\n"
                         ".width\nselect printf('%.100c', 'z') as wide;\n")
        self.assertIn('abc... | 1 ', out)
        self.assertIn('z' * 77 + '...', out)
        self.assertNotIn('z' * 78, out)

    def test_output_to_a_file_and_back(self):
        path = os.path.join(self.dir, 'out.txt')
        # Values no timer line ("0.123 ms") can hold by chance.
        out = self.shell('.output %s\nselect \'first-value\' as x;\n.output\n'
                         'select \'second-value\' as y;\n' % path)
        with open(path) as f:
            written = f.read()
        self.assertIn('first-value', written)
        self.assertNotIn('second-value', written)
        self.assertIn('second-value', out)
        self.assertNotIn('first-value', out)

    def test_timer_off(self):
        out = self.shell('.timer off\nselect 1 as x;\n.timer on\nselect 2 as y;\n')
        self.assertEqual(out.count('Query executed'), 1)

    def test_help_lists_the_commands(self):
        out = self.shell('.help\n')
        for command in ('.tables', '.width', '.mode', '.output', '.timer', '.maxrows',
                        '.schema', '.read', '.quit'):
            self.assertIn(command, out)


if __name__ == '__main__':
    e.main()
