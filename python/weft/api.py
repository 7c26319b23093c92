"""weft.TraceProcessor: a weft process serving the TraceProcessor RPC on
its standard input and output (`weft server stdio`), with the traces
loaded and merged once."""
import os
import shutil
import socket
import subprocess
import tempfile

from . import _wire


class WeftError(Exception):
    """weft failed: it could not load the traces, or it stopped."""


class QueryError(WeftError):
    """A query failed; the message is weft's traceback."""


class QueryResult:
    """The answer to a query: the last statement's columns and rows."""

    def __init__(self, columns, rows, statement_count=None, statement_with_output_count=None,
                 last_statement_sql=None):
        self.columns = list(columns)
        self.rows = rows
        self.statement_count = statement_count
        self.statement_with_output_count = statement_with_output_count
        self.last_statement_sql = last_statement_sql

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def as_dicts(self):
        """The rows as dicts from column name to value."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def as_pandas_dataframe(self):
        """The rows as a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas
        except ImportError as err:
            raise WeftError('as_pandas_dataframe needs pandas') from err
        return pandas.DataFrame.from_records(self.rows, columns=self.columns)


def session_socket_path(name):
    """The socket of the `weft server unix --name NAME` session, by weft's
    rule: $XDG_RUNTIME_DIR/weft/NAME.sock, else /tmp/weft-UID/NAME.sock."""
    runtime = os.environ.get('XDG_RUNTIME_DIR')
    folder = os.path.join(runtime, 'weft') if runtime else '/tmp/weft-%d' % os.getuid()
    return os.path.join(folder, name + '.sock')


def _find_weft(bin_path):
    path = bin_path or os.environ.get('WEFT_BIN') or shutil.which('weft')
    if not path:
        raise WeftError('no weft binary: pass bin_path, set WEFT_BIN or put weft on PATH')
    return path


def _pairs(flag, mapping):
    """--flag FILE=VALUE for each item of a dict."""
    out = []
    for path, value in (mapping or {}).items():
        if isinstance(value, int) and flag == '--offset':
            value = '%dns' % value
        out += [flag, '%s=%s' % (path, value)]
    return out


class TraceProcessor:
    """weft on one or more traces, merged on one timeline.

        with weft.TraceProcessor(['phone.pftrace', 'server.json'],
                                 machine={'server.json': 'server'}) as tp:
            for row in tp.query('select name, ts from slice limit 3'):
                print(row)

    traces: a path or a list of paths. machine: {path: machine name};
    sync: {path: the path it is placed against}; offset: {path: duration}
    (a string such as '250ms', or nanoseconds as an int; a path without a
    sync entry is placed against the first trace); args: more weft flags.
    bin_path: the weft binary (default: $WEFT_BIN, else weft on PATH).

    remote: instead of traces, the name of a running `weft server unix
    --name NAME` session to query (its trace stays loaded after close)."""

    def __init__(self, traces=(), machine=None, offset=None, sync=None, args=(),
                 bin_path=None, remote=None):
        self._seq = 0
        self._rx = b''
        self._proc = self._sock = None
        if remote is not None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self._sock.connect(session_socket_path(remote))
            except OSError as err:
                self._sock.close()
                self._sock = None
                raise WeftError('no weft session %r: %s' % (remote, err)) from err
            return
        if isinstance(traces, (str, os.PathLike)):
            traces = [traces]
        traces = [os.fspath(t) for t in traces]
        sync = dict(sync or {})
        for path in offset or {}:
            if path not in sync and traces and path != traces[0]:
                sync[path] = traces[0]
        command = [_find_weft(bin_path), 'server', 'stdio', '--quiet',
                   *_pairs('--machine', machine), *_pairs('--sync', sync),
                   *_pairs('--offset', offset), *args, *traces]
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr)

    def _fail(self, what):
        if self._sock is not None:
            raise WeftError(what + ' (the session closed the connection)')
        self._proc.wait()
        self._stderr.seek(0)
        message = self._stderr.read().decode('utf-8', 'replace').strip()
        raise WeftError('%s (weft exited with %s)%s' % (
            what, self._proc.returncode, ': ' + message if message else ''))

    def _next_message(self):
        while True:
            msgs, rest = _wire.stream_messages(self._rx)
            if msgs:
                self._rx = rest + b''.join(_wire.field_bytes(1, m) for m in msgs[1:])
                return msgs[0]
            if self._sock is not None:
                chunk = self._sock.recv(1 << 20)
            else:
                chunk = self._proc.stdout.read1(1 << 20)
            if not chunk:
                self._fail('weft stopped')
            self._rx += chunk

    def query(self, sql):
        """Runs sql (one or more statements) and returns the last
        statement's QueryResult; raises QueryError on an SQL error."""
        if self._proc is None and self._sock is None:
            raise WeftError('the trace processor is closed')
        self._seq += 1
        try:
            if self._sock is not None:
                self._sock.sendall(_wire.query_request(self._seq, sql))
            else:
                self._proc.stdin.write(_wire.query_request(self._seq, sql))
                self._proc.stdin.flush()
        except OSError:
            self._fail('weft stopped')
        reader = _wire.QueryResultReader()
        while not reader.done and reader.error is None:
            for number, wire, value in _wire.fields(self._next_message()):
                if number == _wire.RPC_FATAL_ERROR and wire == _wire.BYTES:
                    raise WeftError(bytes(value).decode('utf-8', 'replace'))
                if number == _wire.RPC_QUERY_RESULT and wire == _wire.BYTES:
                    reader.add(value)
        if reader.error is not None:
            raise QueryError(reader.error)
        return QueryResult(reader.columns, reader.rows, reader.statement_count,
                           reader.statement_with_output_count, reader.last_statement_sql)

    def close(self):
        """Stops weft (or leaves the remote session)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        self._stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, '_proc', None) is not None or getattr(self, '_sock', None):
            self.close()
