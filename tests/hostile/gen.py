#!/usr/bin/env python3
"""Generates hostile input files for weft (no binary blobs in the repo).

    tests/hostile/gen.py OUTDIR      writes every case to OUTDIR, lists them

Each case is (name, file name, bytes, extra CLI flags, expectation):
  'error'  weft must fail with exit status 1 and a one-line message that
           names the file and contains every `words` entry;
  'load'   weft must load (exit 0), possibly partially (the stats say what
           was dropped);
  'either' exit 0 or 1 (with the message rules of 'error').
tests/e2e/test_hostile.py runs them all, checking time, exit status < 128
and peak RSS. Bombs are built without ever holding their expansion: a deflate
stream of zeros is one flushed chunk repeated, a zstd bomb is RLE blocks.
"""
import gzip
import io
import json
import os
import struct
import sys
import tarfile
import zipfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'e2e'))
from weft_e2e import pb_bytes, pb_int, pb_packet  # noqa: E402 (the tests' protobuf writer)

MIB = 1 << 20
GIB = 1 << 30


class Case:
    def __init__(self, name, filename, data, expect, words=(), flags=()):
        self.name = name
        self.filename = filename
        self.data = data
        self.expect = expect
        self.words = tuple(words)
        self.flags = tuple(flags)


# ---- builders ----

def deflate_zeros(total, raw=True):
    """A deflate stream of `total` zero bytes (total a multiple of 1 MiB),
    built from one Z_FULL_FLUSH chunk repeated: cheap to make at any size."""
    assert total % MIB == 0 and total >= 2 * MIB
    c = zlib.compressobj(9, zlib.DEFLATED, -15 if raw else 15)
    zero = bytes(MIB)
    first = c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    second = c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    third = c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    assert second == third, 'flushed chunks differ'
    return first + second * (total // MIB - 1) + c.flush()


def gzip_zeros(total):
    """gzip member of `total` zeros. The trailer's CRC is left 0: readers
    must stop at their size limits long before they could check it."""
    crc = 0
    header = b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff'
    return header + deflate_zeros(total) + struct.pack('<II', crc, total & 0xffffffff)


def zip_raw(members):
    """A zip from (name bytes, deflated data, crc, uncompressed size, method);
    sizes as declared (no zip64: sizes must fit 32 bits)."""
    out = bytearray()
    central = bytearray()
    for name, data, crc, usize, method in members:
        offset = len(out)
        out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, method, 0, 0, crc,
                           len(data), usize & 0xffffffff, len(name), 0) + name + data
        central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, method, 0, 0,
                               crc, len(data), usize & 0xffffffff, len(name), 0, 0, 0, 0,
                               0o100644 << 16, offset) + name
    end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(members), len(members),
                      len(central), len(out), 0)
    return bytes(out + central + end)


def make_zip(members, compression=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def make_tar(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def tar_header(name, size_field, typeflag=b'0'):
    """A ustar header with a raw 12-byte size field and a correct checksum."""
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b'0000644\x00'
    h[108:116] = b'0000000\x00'
    h[116:124] = b'0000000\x00'
    h[124:136] = size_field
    h[136:148] = b'00000000000\x00'
    h[156:157] = typeflag
    h[257:265] = b'ustar\x0000'
    h[148:156] = b' ' * 8
    h[148:156] = b'%06o\x00 ' % sum(h)
    return bytes(h)


def zstd_rle(total):
    """A zstd frame of RLE blocks: 4 bytes per 128 KiB of zeros."""
    frame = b'\x28\xb5\x2f\xfd\x00\x38'
    block = 128 << 10
    n = total // block
    mid = ((block << 3) | (1 << 1)).to_bytes(3, 'little') + b'\x00'
    last = ((block << 3) | (1 << 1) | 1).to_bytes(3, 'little') + b'\x00'
    return frame + mid * (n - 1) + last


APP_JSON = json.dumps({"traceEvents": [
    {"ph": "X", "pid": 1, "tid": 1, "ts": i, "dur": 1, "name": "s%d" % i}
    for i in range(200)]}).encode()

PROTO_PACKET = pb_packet(pb_int(8, 123), pb_int(10, 1),  # timestamp 123, seq 1
                         pb_bytes(11, pb_int(9, 3) + pb_bytes(23, b'inst')))


def manifest(body):
    return json.dumps({"perfetto_manifest": body}).encode()


# ---- the cases ----

def cases():
    out = []
    add = out.append
    app_zip = make_zip([('a.json', APP_JSON), ('b.pb', PROTO_PACKET * 50)])
    add(Case('zip_truncated', 'trunc.zip', app_zip[:len(app_zip) * 6 // 10], 'either'))
    add(Case('zip_truncated_header', 'trunc2.zip', app_zip[:20], 'error'))
    app_tar = make_tar([('a.json', APP_JSON), ('b.json', APP_JSON)])
    add(Case('tar_truncated', 'trunc.tar', app_tar[:len(app_tar) - 1500], 'either'))
    add(Case('gzip_truncated', 'trunc.json.gz', gzip.compress(APP_JSON)[:300], 'either'))
    add(Case('gzip_bomb', 'bomb.gz', gzip_zeros(4 * GIB - MIB), 'error', ['limit']))
    add(Case('gzip_bomb_nested', 'nested.gz',
             gzip.compress(gzip.compress(gzip_zeros(8 * GIB - MIB))), 'error', ['limit']))
    add(Case('zip_bomb', 'bomb.zip',
             zip_raw([(b'zeros.json', deflate_zeros(4 * GIB - MIB), 0, 4 * GIB - MIB, 8)]),
             'error', ['limit']))
    many = deflate_zeros(63 * MIB)
    crc = 0
    for _ in range(63):
        crc = zlib.crc32(bytes(MIB), crc)
    add(Case('zip_bomb_members', 'bomb_members.zip',
             zip_raw([(b'z%03d' % i, many, crc, 63 * MIB, 8) for i in range(100)]),
             'error', ['limit']))
    # Each member is valid JSON just under every per-stream floor; together
    # they would need 300 x 60 MiB: only the whole-input budget stops them.
    padded = b'[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"p"}' + b' ' * (60 * MIB) + b']'
    inner_json = gzip.compress(gzip.compress(padded, 9), 9)
    add(Case('zip_of_json_bombs', 'json_bombs.zip',
             make_zip([('j%03d.json.gz' % i, inner_json) for i in range(300)]),
             'error', ['limit']))
    inner = gzip.compress(gzip_zeros(16 * GIB - MIB), 9)  # ~16 MB -> 16 GiB
    add(Case('zip_of_nested_bombs', 'nested_bombs.zip',
             make_zip([('n%03d.gz' % i, inner) for i in range(300)]),
             'error', ['limit']))
    add(Case('zstd_bomb', 'bomb.zst', zstd_rle(16 * GIB), 'error', ['limit']))
    add(Case('nesting_depth', 'deep.zip', _nested_zips(12), 'error', ['depth']))
    add(Case('json_deep_200k', 'deep.json',
             b'{"traceEvents":' + b'[' * 200000 + b']' * 200000 + b'}', 'error', ['nesting']))
    add(Case('json_deep_200k_bare', 'deep_bare.json', b'[' * 200000 + b']' * 200000, 'error'))
    add(Case('json_deep_in_args', 'deep_args.json',
             b'{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"x",'
             b'"args":{"a":' + b'{"b":' * 200000 + b'1' + b'}' * 200000 + b'}}]}',
             'error', ['nesting']))
    add(Case('json_deep_flag', 'deep_flag.json',
             b'{"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"x",'
             b'"args":{"a":[[[[[[[[1]]]]]]]]}}]}', 'error', ['nesting'],
             flags=['--max-json-depth', '6']))
    add(Case('json_long_string', 'long_string.json',
             b'[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"' + b'x' * (2 * MIB) + b'"}]',
             'error', ['longer than the limit'], flags=['--max-string', '1M']))
    add(Case('json_nul_invalid_utf8', 'nul.json',
             b'[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"a\x00b\xff\xfe\\u0000",'
             b'"cat":"\xc3\x28","args":{"k\x00\xff":"\xed\xa0\x80"}}]', 'load'))
    # Found by fuzz_json: a pid/tid that is a number outside int64 (UB cast).
    add(Case('json_huge_numbers', 'huge.json',
             b'[{"ph":"X","ts":1,"dur":1,"pid":3.9e20,"tid":-1e300,"name":"a"},'
             b'{"ph":"C","ts":2,"pid":1e19,"name":"c","args":{"v":1e400}},'
             b'{"ph":"X","ts":1e300,"dur":-1e300,"pid":1,"tid":1,"name":"b"}]', 'load'))
    add(Case('proto_varint_11_bytes', 'varint11.pb',
             PROTO_PACKET + b'\x0a' + b'\xff' * 10 + b'\x01' + PROTO_PACKET, 'either'))
    add(Case('proto_varint_11_in_packet', 'varint11b.pb',
             PROTO_PACKET + pb_bytes(1, b'\x40' + b'\xff' * 10 + b'\x01'), 'either'))
    add(Case('proto_length_past_end', 'pastend.pb',
             PROTO_PACKET + b'\x0a\xff\xff\xff\xff\x0f' + b'\x00' * 16, 'either'))
    add(Case('proto_nested_length_past_end', 'pastend2.pb',
             PROTO_PACKET + pb_bytes(1, b'\x5a\xff\xff\xff\x7f\x48\x03'), 'either'))
    add(Case('proto_compressed_bomb', 'compressed_bomb.pb',
             pb_packet(pb_bytes(50, b'\x78\x9c' + deflate_zeros(1 * GIB - MIB)))
             * 4, 'either'))
    add(Case('tar_size_8gb', 'size8g.tar',
             tar_header(b'big.json', b'100000000000') + APP_JSON + bytes(1024), 'error'))
    add(Case('tar_size_base256', 'size256.tar',
             tar_header(b'big.json', b'\x80' + b'\x00' * 3 + b'\x7f' + b'\xff' * 7)
             + APP_JSON, 'error'))
    add(Case('zip_20000_members', 'many.zip',
             make_zip([('m%05d.json' % i, b'[{"ph":"i","ts":%d,"pid":1,"tid":1,"name":"m"}]' % i)
                       for i in range(20000)], zipfile.ZIP_STORED), 'load'))
    add(Case('zip_members_flag', 'many_flag.zip',
             make_zip([('m%04d.json' % i, b'[]') for i in range(2000)], zipfile.ZIP_STORED),
             'error', ['members'], flags=['--max-members', '1000']))
    add(Case('zip_bad_names', 'names.zip',
             zip_raw([(b'a\x00b.json', APP_JSON, zlib.crc32(APP_JSON), len(APP_JSON), 0),
                      (b'\xff\xfe\x80.json', APP_JSON, zlib.crc32(APP_JSON), len(APP_JSON), 0),
                      (b'../../etc/passwd', APP_JSON, zlib.crc32(APP_JSON), len(APP_JSON), 0)]),
             'either'))
    add(Case('tar_bad_names', 'names.tar',
             tar_header(b'\xff\xfe\x01\x1b[31m.json', b'%011o\x00' % len(APP_JSON))
             + APP_JSON + bytes(-len(APP_JSON) % 512) + bytes(1024), 'either'))
    add(Case('bad_file_name', b'\xff\xfe\x1b[2J bad name.json', APP_JSON, 'load'))
    add(Case('manifest_wrong_types', 'mtypes.zip',
             make_zip([('manifest.json', manifest({"version": 1, "files": "x"})),
                       ('a.json', APP_JSON)]), 'error', ['perfetto_manifest']))
    add(Case('manifest_wrong_types2', 'mtypes2.zip',
             make_zip([('manifest.json', manifest(
                 {"version": 1, "files": [{"path": 5, "machines": {"id": "x"}}]})),
                 ('a.json', APP_JSON)]), 'error', ['perfetto_manifest']))
    add(Case('manifest_version_type', 'mversion.json', manifest({"version": [1]}),
             'error', ['perfetto_manifest']))
    add(Case('manifest_sync_to_cycle', 'mcycle.zip',
             make_zip([('manifest.json', manifest({"version": 1, "files": [
                 {"path": "a.json", "clocks": {"sync_to": {"file": "b.json"}}},
                 {"path": "b.json", "clocks": {"sync_to": {"file": "c.json"}}},
                 {"path": "c.json", "clocks": {"sync_to": {"file": "a.json"}}}]})),
                 ('a.json', APP_JSON), ('b.json', APP_JSON), ('c.json', APP_JSON)]),
             'error', ['perfetto_manifest', 'cycle']))
    add(Case('manifest_sync_to_self', 'mself.zip',
             make_zip([('manifest.json', manifest({"version": 1, "files": [
                 {"path": "a.json", "clocks": {"sync_to": {"file": "a.json"}}}]})),
                 ('a.json', APP_JSON)]), 'error', ['perfetto_manifest']))
    chain = [{"path": "f%d" % i, "clocks": {"sync_to": {"file": "f%d" % (i + 1)}}}
             for i in range(20000)] + [{"path": "f20000"}]
    add(Case('manifest_long_chain', 'mchain.json', manifest({"version": 1, "files": chain}),
             'either'))
    add(Case('manifest_deep', 'mdeep.json',
             b'{"perfetto_manifest":{"version":1,"x":' + b'[' * 200000 + b']' * 200000 + b'}}',
             'error', ['perfetto_manifest']))
    # The manifest honours the JSON limits like the JSON importer.
    add(Case('manifest_deep_flag', 'mdeep_flag.json',
             manifest({"version": 1, "x": [[[[[[[[1]]]]]]]]}), 'error',
             ['perfetto_manifest', 'nesting deeper than the limit of 6', '--max-json-depth'],
             flags=['--max-json-depth', '6']))
    add(Case('manifest_long_string_flag', 'mstring_flag.zip',
             make_zip([('manifest.json', manifest({"version": 1, "files": [
                 {"path": "a.json", "machine": {"name": "m" * (2 * MIB)}}]})),
                 ('a.json', APP_JSON)]), 'error',
             ['manifest.json', 'perfetto_manifest', 'longer than the limit of 1048576',
              '--max-string'], flags=['--max-string', '1M']))
    add(Case('systrace_long_line', 'long.systrace',
             b'# tracer: nop\n' + b'  a-1 [000] .... 1.0: tracing_mark_write: B|1|' +
             b'x' * (20 * MIB) + b'\n', 'error', ['line 2', '1048576 bytes', '--max-line'],
             flags=['--max-line', '1M']))
    # The default limit (16 MiB), and a line without a newline at the end.
    add(Case('systrace_long_line_default', 'long_default.systrace',
             b'  a-1 [000] .... 1.0: tracing_mark_write: B|1|' + b'x' * (17 * MIB),
             'error', ['line 1', '16777216 bytes', '--max-line']))
    add(Case('empty_file', 'empty.pb', b'', 'either'))
    add(Case('decompressed_flag', 'small.json.gz', gzip.compress(APP_JSON), 'error',
             ['decompressed size limit'], flags=['--max-decompressed', '1K']))
    add(Case('archive_depth_flag', 'two.zip', _nested_zips(2), 'error', ['depth'],
             flags=['--max-archive-depth', '1']))
    return out


def _nested_zips(depth):
    data = APP_JSON
    for i in range(depth):
        data = make_zip([('level%d.zip' % i if i else 'a.json', data)])
    return data


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for c in cases():
        name = c.filename if isinstance(c.filename, bytes) else c.filename.encode()
        with open(os.path.join(outdir.encode(), name), 'wb') as f:
            f.write(c.data)
        print('%-28s %10d bytes  %s %s' % (c.name, len(c.data), c.expect, ' '.join(c.flags)))


if __name__ == '__main__':
    main()
