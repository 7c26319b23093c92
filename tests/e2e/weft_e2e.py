"""Helpers shared by the end-to-end tests: run the weft binary, compare."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

WEFT = None
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
ENCODE = os.path.join(ROOT, 'scripts', 'encode_textproto.sh')


def run(*args, stdin=None, timeout=60, env=None):
    """Runs weft with args; returns (exit status, stdout, stderr). env: the
    variables to set on top of this process's environment."""
    proc = subprocess.run([WEFT, *args], input=stdin, capture_output=True,
                          timeout=timeout, env=dict(os.environ, **env) if env else None)
    return proc.returncode, proc.stdout.decode(errors='replace'), \
        proc.stderr.decode(errors='replace')


def query(sql, *inputs, threads=None, options=(), env=None, timeout=60):
    """The CSV weft prints for the SQL (one statement or several) on the
    inputs, loaded with --threads `threads` when given and the other
    command-line options (e.g. ('--max-line', '1K')); env as for run. weft
    exiting with an error fails the test, showing its stderr."""
    if threads is not None:
        options = ('--threads', str(threads), *options)
    rc, out, err = run(*options, '-Q', sql, *inputs, env=env, timeout=timeout)
    if rc != 0:
        raise AssertionError('weft exited with %d: %s' % (rc, err))
    return out


def encode_textproto(src, out):
    """Encodes the Perfetto text-format trace at src into a binary trace at
    out (scripts/encode_textproto.sh; protoc comes with scripts/deps.sh);
    returns out."""
    subprocess.run(['sh', ENCODE, src, out], check=True)
    return out


def textproto_trace(directory, name, text):
    """The Perfetto text-format trace `text` encoded as directory/name
    (its text beside it, as name.textproto); returns the trace's path."""
    src = write_temp(directory, name + '.textproto', text)
    return encode_textproto(src, os.path.join(directory, name))


def write_temp(directory, name, data):
    path = os.path.join(directory, name)
    mode = 'wb' if isinstance(data, bytes) else 'w'
    with open(path, mode) as f:
        f.write(data)
    return path


def varint(v):
    """v as a protobuf varint."""
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def pb_int(number, value):
    """A varint field (negative values as 64-bit two's complement)."""
    return varint(number << 3) + varint(value & ((1 << 64) - 1))


def pb_bytes(number, payload):
    """A length-delimited field: bytes, or str encoded as UTF-8."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def pb_double(number, value):
    """A fixed64 field holding a double."""
    return varint(number << 3 | 1) + struct.pack('<d', value)


def pb_packet(*fields):
    """One Trace.packet holding the given TracePacket fields."""
    return pb_bytes(1, b''.join(fields))


def read_varint(data, i):
    """The varint at data[i]: (value, index after it)."""
    v = shift = 0
    while True:
        b = data[i]
        v |= (b & 0x7f) << shift
        shift += 7
        i += 1
        if b < 0x80:
            return v, i


def proto_fields(data):
    """The top-level fields of a protobuf message: (number, wire type, the
    field's bytes with its tag)."""
    i, out = 0, []
    while i < len(data):
        start = i
        tag, i = read_varint(data, i)
        wire = tag & 7
        if wire == 0:
            _, i = read_varint(data, i)
        elif wire == 2:
            n, i = read_varint(data, i)
            i += n
        else:
            i += 8 if wire == 1 else 4
        out.append((tag >> 3, wire, data[start:i]))
    return out


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
