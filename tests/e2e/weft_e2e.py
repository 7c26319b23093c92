"""Helpers shared by the end-to-end tests: run the weft binary, compare."""
import os
import subprocess
import sys
import tempfile
import unittest

WEFT = None


def run(*args, stdin=None, timeout=60):
    """Runs weft with args; returns (exit status, stdout, stderr)."""
    proc = subprocess.run([WEFT, *args], input=stdin, capture_output=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout.decode(errors='replace'), \
        proc.stderr.decode(errors='replace')


def write_temp(directory, name, data):
    path = os.path.join(directory, name)
    mode = 'wb' if isinstance(data, bytes) else 'w'
    with open(path, mode) as f:
        f.write(data)
    return path


def main():
    global WEFT
    WEFT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()
