"""End-to-end: the progress line on stderr (src/cli/progress.c).

A load is made to last over a second by feeding the trace through a FIFO
that a writer thread fills in two parts with a pause between them."""
import os
import pty
import select
import threading
import time
import weft_e2e as e

TRACE_HEAD = '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}'
TRACE_TAIL = ',{"ph":"X","name":"b","ts":5,"dur":2,"pid":1,"tid":1}]}'
QUERY = 'select count(*) as n from slice'


class SlowFifo:
    """A FIFO whose content arrives in two parts, `pause` seconds apart."""

    def __init__(self, directory, pause=1.6):
        self.path = os.path.join(directory, 'slow.json')
        os.mkfifo(self.path)
        self.thread = threading.Thread(target=self._write, args=(pause,))
        self.thread.start()

    def _write(self, pause):
        with open(self.path, 'w') as f:  # blocks until weft opens it
            f.write(TRACE_HEAD)
            f.flush()
            time.sleep(pause)
            f.write(TRACE_TAIL)

    def join(self):
        self.thread.join(timeout=30)


def run_on_pty(args, timeout=30):
    """Runs weft with stdout and stderr on a terminal; returns (status, bytes)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(e.WEFT, [e.WEFT, *args])
    out = b''
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out


class ProgressTest(e.TempDirTest):
    def test_no_progress_when_stderr_is_not_a_terminal(self):
        fifo = SlowFifo(self.dir)
        rc, out, err = e.run('-Q', QUERY, fifo.path)
        fifo.join()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"n"\n2\n')
        self.assertEqual(err, '')

    def test_progress_line_on_a_terminal_is_erased(self):
        fifo = SlowFifo(self.dir)
        rc, out = run_on_pty(['-Q', QUERY, fifo.path])
        fifo.join()
        self.assertEqual(rc, 0, out)
        self.assertIn(b'\rloading: ', out)
        self.assertIn(b'MiB/s', out)
        # the line is erased before the results are printed
        self.assertIn(b'\r\x1b[K"n"', out)
        self.assertTrue(out.endswith(b'"n"\r\n2\r\n'), out[-80:])

    def test_quiet_silences_progress_on_a_terminal(self):
        fifo = SlowFifo(self.dir)
        rc, out = run_on_pty(['--quiet', '-Q', QUERY, fifo.path])
        fifo.join()
        self.assertEqual(rc, 0, out)
        self.assertEqual(out, b'"n"\r\n2\r\n')

    def test_fast_load_on_a_terminal_shows_nothing(self):
        path = e.write_temp(self.dir, 't.json', TRACE_HEAD + TRACE_TAIL)
        rc, out = run_on_pty(['-Q', QUERY, path])
        self.assertEqual(rc, 0, out)
        self.assertEqual(out, b'"n"\r\n2\r\n')


if __name__ == '__main__':
    e.main()
