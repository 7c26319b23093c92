#!/usr/bin/env python3
"""Writes the seed corpora of the libFuzzer targets in fuzz/.

    scripts/fuzz_seeds.py OUTDIR [--conformance DIR]

Creates OUTDIR/<target>/ for every target (fuzz_proto, fuzz_json,
fuzz_manifest, fuzz_archive, fuzz_systrace, fuzz_pipeline). Every seed is
made here from small text (JSON, text protos encoded with protoc, systrace
lines) and containers built on the fly, so the repository holds no binary
blobs. With --conformance, small traces of the shared conformance corpus are
added too (optional; the seeds stand on their own).
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'e2e'))
from weft_e2e import pb_bytes, pb_int, pb_packet  # noqa: E402 (the tests' protobuf writer)

TARGETS = ['fuzz_proto', 'fuzz_json', 'fuzz_manifest', 'fuzz_archive',
           'fuzz_systrace', 'fuzz_pipeline', 'fuzz_psql', 'fuzz_rpc',
           'fuzz_instruments']
MARKER = b'\nWEFTFILE\n'  # fuzz_pipeline's file separator
MAX_SEED = 256 << 10

# ---- small encoders ----


def zstd_raw(data, rle=None, rle_len=0):
    """A zstd frame of raw blocks (or one RLE block): no compressor needed."""
    frame = b'\x28\xb5\x2f\xfd' + b'\x00' + b'\x38'  # no FCS, 128 KiB window
    if rle is not None:
        blocks = []
        while rle_len > 0:
            n = min(rle_len, 128 << 10)
            rle_len -= n
            blocks.append((n << 3) | (1 << 1) | (1 if rle_len == 0 else 0))
            blocks[-1] = blocks[-1].to_bytes(3, 'little') + rle
        return frame + b''.join(blocks)
    chunks = [data[i:i + (128 << 10)] for i in range(0, len(data), 128 << 10)] or [b'']
    for i, c in enumerate(chunks):
        last = 1 if i == len(chunks) - 1 else 0
        frame += ((len(c) << 3) | last).to_bytes(3, 'little') + c
    return frame


def protoc_encode(text):
    """Encodes a Perfetto text proto with weft's schema; None without protoc."""
    if shutil.which('protoc') is None:
        return None
    proc = subprocess.run(
        ['protoc', '--encode=perfetto.protos.Trace', '-I', os.path.join(ROOT, 'protos'),
         os.path.join(ROOT, 'protos', 'weft_trace.proto')],
        input=text.encode(), capture_output=True)
    return proc.stdout if proc.returncode == 0 else None


def make_zip(members, compression=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression) as z:
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def make_tar(members, fmt=tarfile.USTAR_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=fmt) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                t.addfile(info)
                continue
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gz(data):
    return gzip.compress(data, mtime=0)


# ---- seed material ----

TEXTPROTOS = [
    # clock snapshot, process tree, track descriptors, slices, counter
    '''
packet { timestamp: 1000 trusted_packet_sequence_id: 1
  clock_snapshot { clocks { clock_id: 6 timestamp: 1000 }
                   clocks { clock_id: 1 timestamp: 1700000000000000000 }
                   clocks { clock_id: 3 timestamp: 900 } } }
packet { timestamp: 1000 trusted_packet_sequence_id: 1
  process_tree { processes { pid: 10 ppid: 1 cmdline: "/bin/app" uid: 1000 }
                 threads { tid: 11 tgid: 10 name: "worker" } } }
packet { timestamp: 1500 trusted_packet_sequence_id: 2 sequence_flags: 1
  track_descriptor { uuid: 100 name: "main"
    thread { pid: 10 tid: 11 thread_name: "worker" } } }
packet { timestamp: 1600 trusted_packet_sequence_id: 2 sequence_flags: 2
  interned_data { event_names { iid: 1 name: "interned" }
                  event_categories { iid: 1 name: "cat" } }
  track_event { type: TYPE_SLICE_BEGIN track_uuid: 100 name_iid: 1
                category_iids: 1
                debug_annotations { name: "n" int_value: 5 }
                debug_annotations { name: "s" string_value: "v" } } }
packet { timestamp: 1700 trusted_packet_sequence_id: 2 sequence_flags: 2
  track_event { type: TYPE_INSTANT track_uuid: 100 name: "instant" } }
packet { timestamp: 1800 trusted_packet_sequence_id: 2 sequence_flags: 2
  track_event { type: TYPE_SLICE_END track_uuid: 100 } }
packet { timestamp: 1900 trusted_packet_sequence_id: 3
  track_descriptor { uuid: 200 name: "mem" counter { } } }
packet { timestamp: 2000 trusted_packet_sequence_id: 3
  track_event { type: TYPE_COUNTER track_uuid: 200 counter_value: 42 } }
''',
    # defaults, custom clock, machine id, incremental counters
    '''
packet { trusted_packet_sequence_id: 7 sequence_flags: 1
  trace_packet_defaults { timestamp_clock_id: 3
    track_event_defaults { track_uuid: 5 } } }
packet { trusted_packet_sequence_id: 7 timestamp: 50 sequence_flags: 2
  track_event { type: TYPE_SLICE_BEGIN name: "a" } }
packet { trusted_packet_sequence_id: 7 timestamp: 90 sequence_flags: 2
  track_event { type: TYPE_SLICE_END } }
packet { timestamp: 10 timestamp_clock_id: 64 trusted_packet_sequence_id: 8
  machine_id: 3 track_event { type: TYPE_INSTANT name: "custom clock" } }
''',
]

JSON_TRACES = [
    {"traceEvents": [
        {"ph": "M", "pid": 1, "tid": 1, "name": "process_name", "args": {"name": "app"}},
        {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "t2"}},
        {"ph": "X", "pid": 1, "tid": 1, "ts": 10, "dur": 100, "name": "outer", "cat": "c"},
        {"ph": "X", "pid": 1, "tid": 1, "ts": 20, "dur": 30, "name": "inner",
         "args": {"n": 7, "s": "x\u00e9\\\"", "nested": {"a": [1, 2.5e3, None, True]}}},
        {"ph": "B", "pid": 1, "tid": 2, "ts": 200.5, "name": "open"},
        {"ph": "E", "pid": 1, "tid": 2, "ts": 300},
        {"ph": "i", "pid": 1, "tid": 2, "ts": 250, "name": "inst", "s": "g"},
        {"ph": "C", "pid": 1, "ts": 50, "name": "mem", "args": {"rss": 5, "vm": 9.5}},
        {"ph": "b", "pid": 1, "tid": 1, "ts": 60, "name": "async", "id": "0x10", "cat": "a"},
        {"ph": "n", "pid": 1, "tid": 1, "ts": 65, "name": "async", "id": "0x10", "cat": "a"},
        {"ph": "e", "pid": 1, "tid": 1, "ts": 70, "name": "async", "id": "0x10", "cat": "a"},
    ], "displayTimeUnit": "ns", "otherData": {"version": "1"}},
    [{"ph": "X", "pid": 9, "tid": 9, "ts": 5, "dur": 1, "name": "server"}],
    {"traceEvents": [{"ph": "X", "pid": -1, "tid": 2 ** 40, "ts": 1e300, "dur": -5,
                      "name": "\ud800", "id2": {"global": "0x1"}}]},
]
JSON_TEXT = [
    b'[{"ph":"B","pid":1,"tid":1,"ts":1,"name":"unterminated"},',
    b'{"traceEvents":[{"ph":"X","ts":"12","dur":"3","pid":"1","tid":"1","name":"s"}]}',
    b'{"traceEvents":[],"metadata":{"k":[[[[[[[[{"a":"\\u0041\\ud83d\\ude00"}]]]]]]]]}}',
    b' \n\t[{"name":"ws","ph":"I","ts":0,"pid":0,"tid":0}]  ',
]

MANIFESTS = [
    {"perfetto_manifest": {"version": 1}},
    {"perfetto_manifest": {
        "version": 1,
        "trace_time": {"clock": "BOOTTIME", "file": "f1", "machine": "phone"},
        "files": [
            {"path": "f1", "machine": {"name": "phone"}},
            {"path": "f2", "machines": [{"id": 1, "name": "watch"}, {"id": 2, "name": "tv"}],
             "clocks": {"clock": "REALTIME", "machine": "watch",
                        "sync_to": {"file": "f1", "clock": "REALTIME", "machine": "phone"},
                        "offset_ns": -5}},
            {"path": "f3", "clocks": {"sync_to": {"file": "f2", "machine": "tv"},
                                      "offset_ns": 1000}},
        ],
        "attributes": {"build": "x", "n": 3}}},
    {"perfetto_manifest": {"version": 2}},
    {"perfetto_manifest": {"version": "1", "files": {}}},
    {"perfetto_manifest": {"version": 1, "files": [
        {"path": "a", "clocks": {"sync_to": {"file": "b"}}},
        {"path": "b", "clocks": {"sync_to": {"file": "a"}}}]}},
]

SYSTRACE = [
    b'''# tracer: nop
#
# entries-in-buffer/entries-written: 4/4   #P:2
#
#                              _-----=> irqs-off
#           TASK-PID    CPU#  ||||    TIMESTAMP  FUNCTION
#              | |        |   ||||       |         |
          <idle>-0     [000] d..2  1234.567890: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=42 next_prio=120
             app-42    [000] ...1  1234.567900: tracing_mark_write: B|42|draw
             app-42    [000] ...1  1234.567950: tracing_mark_write: C|42|counter|7
             app-42    [000] ...1  1234.568000: tracing_mark_write: E|42
             app-42    [001] d..3  1234.568100: sched_wakeup: comm=bg pid=43 prio=120 target_cpu=001
''',
    b'''# tracer: nop
             bg-43    ( 40) [001] .... 10.000001: tracing_mark_write: S|40|async|1
             bg-43    (-----) [001] .... 10.000002: tracing_mark_write: F|40|async|1
  kworker/0:1-7     [000] ....    11.5: cpu_frequency: state=1800000 cpu_id=0
             bg-43    [001] .... 12.000000: print: tracing_mark_write: I|40|inst
''',
    b'cpus=2\n          app-42    [000]  1234.567900: tracing_mark_write: B|42|x\n',
    b'<!DOCTYPE html>\n<html><script class="trace-data" type="application/text">\n'
    b'# tracer: nop\n    app-42 [000] .... 1.000000: tracing_mark_write: B|42|h\n'
    b'</script></html>\n',
    b'TRACE:\n# tracer: nop\n    a-1 [000] .... 2.000000: tracing_mark_write: E|1\n',
]


def proto_seeds():
    seeds = []
    for text in TEXTPROTOS:
        enc = protoc_encode(text)
        if enc:
            seeds.append(enc)
    for name in ('proto/track_events.textproto', 'proto/ftrace_sched.textproto',
                 'proto_import/track_event.textproto'):
        path = os.path.join(ROOT, 'tests', 'data', name)
        if os.path.exists(path):
            enc = protoc_encode(open(path).read())
            if enc:
                seeds.append(enc)
    # Hand-made packets: works without protoc, and covers compressed_packets.
    event = pb_bytes(11, pb_int(9, 3) + pb_bytes(23, b'hand'))
    trace = pb_packet(pb_int(8, 123), pb_int(10, 1), event)
    seeds.append(trace)
    seeds.append(pb_packet(pb_bytes(50, zlib.compress(trace))))
    seeds.append(pb_packet(pb_bytes(50, gz(trace))))
    seeds.append(trace + b'\x0a\xff\xff\xff\xff\x0f')  # length past the end
    seeds.append(trace + b'\x0a' + b'\xff' * 10 + b'\x01')  # 11-byte varint
    return seeds


def json_seeds():
    return [json.dumps(t).encode() for t in JSON_TRACES] + JSON_TEXT


def manifest_seeds():
    return [json.dumps(m).encode() for m in MANIFESTS] + \
        [json.dumps(MANIFESTS[1], indent=2).encode()]


def archive_seeds(protos, jsons):
    p = protos[0] if protos else b'\x0a\x00'
    j = jsons[0]
    m = manifest_seeds()[1]
    inner_zip = make_zip([('inner.json', j)])
    seeds = [
        make_zip([('a.pb', p), ('b.json', j), ('dir/', b''), ('.hidden', b'x'),
                  ('__MACOSX/._a.pb', b'x'), ('manifest.json', m)]),
        make_zip([('stored.json', j), ('nested.zip', inner_zip)], zipfile.ZIP_STORED),
        make_tar([('t/', None), ('t/a.json', j), ('t/b.pb', p), ('t/c.json.gz', gz(j))]),
        make_tar([('x' * 150 + '/long.json', j)], tarfile.GNU_FORMAT),
        make_tar([('pax-\u00e9.json', j)], tarfile.PAX_FORMAT),
        gz(j), gz(j) + gz(p), gz(inner_zip),
        b'# tracer\nTRACE:\n' + zlib.compress(SYSTRACE[0]),
        zstd_raw(j), zstd_raw(b'', rle=b'\x00', rle_len=1 << 17),
    ]
    return seeds


# `perf script` text: samples with pid/tid, cpu, a comm of two words, a
# sample without frames and a last one without its empty line.
PERF_TEXT = (b'perf  100/101 [001] 10.000001:     250000 cpu-clock:ppp: \n'
             b'\tffffffff8162e91f do_syscall_64+0x5f ([kernel.kallsyms])\n'
             b'\t    55000000aaaa main+0x2a (/usr/bin/perf)\n\n'
             b'Chrome_IO thread\t 200/202 10.000200:          1 cycles:u: \n'
             b'\t               0 [unknown] ([unknown])\n\n'
             b'swapper     0 [000] 10.000300: 1 cpu-clock:\n\n'
             b'ls  300 10.000400:     250000 cpu-clock:ppp: \n\t1 f (m)\n')


def pipeline_seeds(protos, jsons, archives):
    seeds = list(protos[:3]) + jsons[:3] + archives + SYSTRACE[:2] + [PERF_TEXT]
    seeds.append(b'# c\nmain;foo;bar 10\n\nmain;foo 5\n;;x;;y 2\nz;a 0\nlast;l 99999999999999999999')
    manifest = json.dumps({"perfetto_manifest": {
        "version": 1,
        "files": [{"path": "f1", "machine": {"name": "m1"}},
                  {"path": "f2", "clocks": {"sync_to": {"file": "f1"}, "offset_ns": 7}}]}}).encode()
    if protos:
        seeds.append(manifest + MARKER + protos[0] + MARKER + jsons[0])
        seeds.append(protos[0] + MARKER + protos[-1])
    seeds.append(jsons[0] + MARKER + jsons[1] + MARKER + SYSTRACE[0])
    seeds.append(PERF_TEXT + MARKER + SYSTRACE[0])
    return seeds


def conformance_seeds(directory):
    """Small traces of the shared corpus by type (best effort)."""
    out = {t: [] for t in TARGETS}
    for dirpath, _, files in os.walk(directory):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if name == 'trace.textproto' and os.path.getsize(path) <= MAX_SEED:
                enc = protoc_encode(open(path, errors='replace').read())
                if enc:
                    out['fuzz_proto'].append(enc)
            elif name == 'trace' and 0 < os.path.getsize(path) <= MAX_SEED:
                data = open(path, 'rb').read()
                head = data[:512].lstrip()
                if b'perfetto_manifest' in head:
                    out['fuzz_manifest'].append(data)
                elif head[:1] in (b'{', b'['):
                    out['fuzz_json'].append(data)
                elif b'# tracer' in head or b'TRACE:' in head or head.startswith(b'cpus='):
                    out['fuzz_systrace'].append(data)
                elif data[:2] in (b'PK', b'\x1f\x8b'):
                    out['fuzz_archive'].append(data)
                out['fuzz_pipeline'].append(data)
    return out


def psql_seeds():
    """PerfettoSQL statements of every kind, and the stdlib's modules."""
    seeds = [
        b'CREATE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS SELECT $x + 1; SELECT f(2);',
        b'CREATE PERFETTO FUNCTION t(n LONG) RETURNS TABLE(v LONG) AS SELECT $n AS v;'
        b' SELECT * FROM t(3);',
        b'CREATE PERFETTO MACRO m(a Expr, t TableOrSubquery) RETURNS TableOrSubquery AS'
        b' (SELECT $a AS v FROM $t); SELECT * FROM m!(1, (SELECT 2));',
        b'CREATE PERFETTO TABLE t(a LONG) AS SELECT 1 AS a; CREATE PERFETTO INDEX i ON t(a);'
        b' DROP PERFETTO INDEX i ON t; SELECT * FROM t WHERE a > 0;',
        b'CREATE OR REPLACE PERFETTO VIEW v(a STRING) AS SELECT \'x\' AS a; SELECT * FROM v;',
        b'INCLUDE PERFETTO MODULE *; SELECT cast_int!(1.5);',
        b'CREATE TRIGGER tr AFTER INSERT ON x BEGIN SELECT 1; END; SELECT 1;',
    ]
    stdlib = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src', 'sql',
                          'stdlib')
    for root, _, files in os.walk(stdlib):
        for name in files:
            with open(os.path.join(root, name), 'rb') as f:
                seeds.append(f.read())
    return seeds


def rpc_seeds():
    """/query request bodies: QueryArgs with SQL and a tag, unknown fields
    of every wire type, repeated and truncated fields."""
    return [
        pb_bytes(1, 'select 1'),
        pb_bytes(1, 'select * from slice') + pb_bytes(3, 'tag'),
        pb_int(2, 7) + pb_bytes(1, 'select 2') + b'\x19' + b'\0' * 8 + b'\x25' + b'\0' * 4,
        pb_bytes(1, 'a') + pb_bytes(1, 'select 3'),
        pb_bytes(5, pb_bytes(1, pb_bytes(1, 'nested'))),
        pb_bytes(1, 'select 4')[:-2],
        b'\x0a\xff\xff\xff\xff\x0f',
    ]


def instruments_seeds():
    """Instruments XML exports: a sample defining its values, one repeating
    them by ref, one on a binary-less frame."""
    head = '<?xml version="1.0"?>\n<trace-query-result>\n<node><schema name="time-profile"/>\n'
    first = ('<row><sample-time id="1">5000</sample-time><thread id="2" fmt="T">'
             '<tid id="3">100</tid><process id="4" fmt="P"><pid id="5">10</pid></process>'
             '</thread><core id="6">3</core><backtrace id="7"><frame id="8" name="leaf" '
             'addr="0x100001010"><binary id="9" UUID="01-AB" load-addr="0x100000000" '
             'path="/a"/></frame><frame id="10" name="root" addr="0x100003000">'
             '<binary ref="9"/></frame></backtrace></row>\n')
    again = ('<row><sample-time id="11">6000</sample-time><thread ref="2"/><core ref="6"/>'
             '<backtrace ref="7"/></row>\n')
    bare = ('<row><sample-time ref="1"/><thread ref="2"/><backtrace id="12">'
            '<frame id="13" addr="0x7"/><frame ref="8"/></backtrace></row>\n')
    tail = '</node></trace-query-result>\n'
    return [(head + rows + tail).encode() for rows in (first, first + again, first + bare)]


def write(directory, seeds):
    os.makedirs(directory, exist_ok=True)
    for s in seeds:
        if not s or len(s) > MAX_SEED:
            continue
        name = hashlib.sha1(s).hexdigest()
        with open(os.path.join(directory, name), 'wb') as f:
            f.write(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--conformance', help='shared conformance corpus (optional)')
    args = ap.parse_args()
    protos = proto_seeds()
    jsons = json_seeds()
    archives = archive_seeds(protos, jsons)
    seeds = {
        'fuzz_proto': protos,
        'fuzz_json': jsons,
        'fuzz_manifest': manifest_seeds(),
        'fuzz_archive': archives,
        'fuzz_systrace': SYSTRACE,
        'fuzz_pipeline': pipeline_seeds(protos, jsons, archives),
        'fuzz_psql': psql_seeds(),
        'fuzz_rpc': rpc_seeds(),
        'fuzz_instruments': instruments_seeds(),
    }
    if args.conformance and os.path.isdir(args.conformance):
        for target, extra in conformance_seeds(args.conformance).items():
            seeds[target] += extra
    for target in TARGETS:
        write(os.path.join(args.outdir, target), seeds[target])
        print(f'{target}: {len(os.listdir(os.path.join(args.outdir, target)))} seeds')
    return 0


if __name__ == '__main__':
    sys.exit(main())
