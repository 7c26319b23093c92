"""The protobuf wire format of the few TraceProcessor RPC messages the
client writes and reads (protos/perfetto/trace_processor/
trace_processor.proto), with the standard library only."""
import struct

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5

# TraceProcessorRpc fields and methods.
RPC_SEQ, RPC_REQUEST, RPC_RESPONSE, RPC_INVALID_REQUEST, RPC_FATAL_ERROR = 1, 2, 3, 4, 5
RPC_QUERY_ARGS, RPC_QUERY_RESULT = 103, 203
TPM_QUERY_STREAMING = 3

# QueryResult.CellsBatch.CellType
CELL_NULL, CELL_VARINT, CELL_FLOAT64, CELL_STRING, CELL_BLOB = 1, 2, 3, 4, 5


class WireError(ValueError):
    """Malformed protobuf bytes."""


def encode_varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7f | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(data, pos):
    """(value, position after it) of the varint at data[pos]."""
    value = shift = 0
    while shift < 64:
        if pos >= len(data):
            raise WireError('truncated varint')
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7f) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise WireError('varint over 10 bytes')


def field_varint(number, value):
    return encode_varint(number << 3 | VARINT) + encode_varint(value)


def field_bytes(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return encode_varint(number << 3 | BYTES) + encode_varint(len(payload)) + payload


def fields(data):
    """Yields (number, wire type, value) of a message's fields: an int for
    varints and fixed fields, a memoryview for length-delimited ones."""
    view = memoryview(data)
    pos = 0
    while pos < len(view):
        tag, pos = read_varint(view, pos)
        number, wire = tag >> 3, tag & 7
        if wire == VARINT:
            value, pos = read_varint(view, pos)
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            if pos + size > len(view):
                raise WireError('truncated fixed field')
            value = int.from_bytes(view[pos:pos + size], 'little')
            pos += size
        elif wire == BYTES:
            size, pos = read_varint(view, pos)
            if pos + size > len(view):
                raise WireError('truncated length-delimited field')
            value = view[pos:pos + size]
            pos += size
        else:
            raise WireError('unsupported wire type %d' % wire)
        yield number, wire, value


def signed64(value):
    return value - (1 << 64) if value >= 1 << 63 else value


def packed_varints(data):
    out, pos = [], 0
    while pos < len(data):
        value, pos = read_varint(data, pos)
        out.append(signed64(value))
    return out


def stream_messages(buffer):
    """Splits a TraceProcessorRpcStream prefix: (the whole messages, the
    bytes of an incomplete one)."""
    msgs, pos = [], 0
    while pos < len(buffer):
        if buffer[pos] != 0x0a:
            raise WireError('bad RPC stream tag %#x' % buffer[pos])
        try:
            size, start = read_varint(buffer, pos + 1)
        except WireError:
            break
        if start + size > len(buffer):
            break
        msgs.append(bytes(buffer[start:start + size]))
        pos = start + size
    return msgs, bytes(buffer[pos:])


def query_request(seq, sql):
    """A TPM_QUERY_STREAMING request, framed for the stream."""
    msg = (field_varint(RPC_SEQ, seq) + field_varint(RPC_REQUEST, TPM_QUERY_STREAMING) +
           field_bytes(RPC_QUERY_ARGS, field_bytes(1, sql)))
    return field_bytes(1, msg)


class QueryResultReader:
    """Accumulates a query's QueryResult messages into columns and rows."""

    def __init__(self):
        self.columns = []
        self.rows = []
        self.error = None
        self.done = False
        self.statement_count = None
        self.statement_with_output_count = None
        self.last_statement_sql = None
        self._cells = []

    def add(self, result):
        for number, wire, value in fields(result):
            if number == 1 and wire == BYTES:
                self.columns.append(bytes(value).decode('utf-8', 'replace'))
            elif number == 2 and wire == BYTES:
                self.error = bytes(value).decode('utf-8', 'replace')
            elif number == 3 and wire == BYTES:
                self._batch(value)
            elif number == 4 and wire == VARINT:
                self.statement_count = value
            elif number == 5 and wire == VARINT:
                self.statement_with_output_count = value
            elif number == 6 and wire == BYTES:
                self.last_statement_sql = bytes(value).decode('utf-8', 'replace')

    def _batch(self, batch):
        types, varints, doubles, blobs, strings = b'', [], [], [], []
        for number, wire, value in fields(batch):
            if number == 1 and wire == BYTES:
                types += bytes(value)
            elif number == 1 and wire == VARINT:
                types += bytes([value])
            elif number == 2 and wire == BYTES:
                varints += packed_varints(value)
            elif number == 2 and wire == VARINT:
                varints.append(signed64(value))
            elif number == 3 and wire == BYTES:
                doubles += struct.unpack('<%dd' % (len(value) // 8), value)
            elif number == 4 and wire == BYTES:
                blobs.append(bytes(value))
            elif number == 5 and wire == BYTES:
                strings = bytes(value).split(b'\0')
            elif number == 6 and wire == VARINT and value:
                self.done = True
        its = {CELL_VARINT: iter(varints), CELL_FLOAT64: iter(doubles), CELL_BLOB: iter(blobs),
               CELL_STRING: (s.decode('utf-8', 'replace') for s in strings)}
        width = len(self.columns)
        for cell_type in types:
            self._cells.append(None if cell_type == CELL_NULL else next(its[cell_type]))
            if len(self._cells) == width:
                self.rows.append(tuple(self._cells))
                self._cells = []
