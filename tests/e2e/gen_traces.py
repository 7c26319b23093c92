#!/usr/bin/env python3
"""Deterministic synthetic traces of a chosen size for the end-to-end tests
that need volume (the determinism tests): a Perfetto proto trace, a Chrome
JSON trace, a systrace text file, and a ZIP of several of them merged by a
perfetto_manifest.json.

    gen_traces.py proto|json|systrace|merge MIB OUT [--files N] [--seed S]

Every kind is a few processes of a few threads with properly nested slices
(begin before its children, end after them), instants and a counter, plus a
schedule of a few CPUs (each thread runs on one CPU, so no thread runs twice
at once). The same arguments always give the same bytes.
"""
import argparse
import io
import json
import random
import zipfile

from weft_e2e import pb_bytes, pb_int, pb_packet

MIB = 1 << 20
REALTIME, MONOTONIC, BOOTTIME = 1, 3, 6
PROCESSES, THREADS, CPUS = 6, 4, 4
BLOCK_NS = 20_000_000  # the time one block of events covers

# TracePacket fields and the fields of the messages it holds (numbers from
# Perfetto's trace protos).
P_FTRACE, P_CLOCKS, P_TS, P_SEQ, P_TRACK_EVENT, P_SEQ_FLAGS, P_TRACK = 1, 6, 8, 10, 11, 13, 60
TE_ANNOTATION, TE_TYPE, TE_TRACK, TE_CATEGORY, TE_NAME, TE_COUNTER = 4, 9, 11, 22, 23, 30
BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4
NAMES = ['draw', 'layout', 'measure', 'input', 'decode', 'commit', 'raster', 'gc',
         'bind', 'inflate', 'sync', 'post task']


class World:
    """The processes, threads and CPUs of one trace file: pids and tids
    offset by `base` so that members of a merge do not share them."""

    def __init__(self, base):
        self.pids = [base + 100 * (p + 1) for p in range(PROCESSES)]
        self.threads = [(pid, pid + t) for pid in self.pids for t in range(THREADS)]
        self.cpu_threads = [[tid for i, (_, tid) in enumerate(self.threads) if i % CPUS == c]
                            for c in range(CPUS)]

    @staticmethod
    def comm(tid):
        return 'worker %d' % tid


def nested_slices(rng, lo, hi, depth, out):
    """Appends (time, 'B'|'E', depth) events of slices strictly nested
    inside [lo, hi), in time order."""
    count = rng.randint(1, 3)
    step = (hi - lo) // count
    for i in range(count):
        start = lo + i * step + rng.randrange(1, max(2, step // 8))
        end = lo + (i + 1) * step - rng.randrange(1, max(2, step // 8))
        if end - start < 400:
            continue
        out.append((start, 'B', depth))
        if depth < 3 and rng.random() < 0.7:
            nested_slices(rng, start + 100, end - 100, depth + 1, out)
        out.append((end, 'E', depth))


def thread_block(rng, lo):
    """One thread's slice events in the block starting at lo: (time, kind,
    name index), kind 'B', 'E' or 'I' (an instant between two events)."""
    raw = []
    nested_slices(rng, lo, lo + BLOCK_NS, 0, raw)
    names, out = [], []
    for t, kind, _ in raw:
        if kind == 'B':
            names.append(rng.randrange(len(NAMES)))
            out.append((t, 'B', names[-1]))
        else:
            out.append((t, 'E', names.pop()))
        if rng.random() < 0.1:
            out.append((t + 1, 'I', rng.randrange(len(NAMES))))
    return out


def cpu_block(rng, world, cpu, lo, running):
    """One CPU's schedule in the block: (time, prev tid, next tid, prev
    state, woken tid or None); tid 0 is idle. running[cpu] carries the
    running thread from block to block."""
    out = []
    t = lo
    while True:
        t += rng.randrange(20_000, 400_000)
        if t >= lo + BLOCK_NS - 1000:
            return out
        prev = running[cpu]
        pick = rng.choice(world.cpu_threads[cpu] + [0])
        if pick == prev:
            continue
        state = 'R' if prev == 0 else rng.choice('RSD')
        woken = pick if pick and rng.random() < 0.5 else None
        out.append((t, prev, pick, state, woken))
        running[cpu] = pick


# ---------------------------------------------------------------- proto ----

SWITCH_STATE = {'R': 0, 'S': 1, 'D': 2}


class ProtoWriter:
    """Packets of one proto trace; encodings that do not hold a time are
    made once and kept."""

    def __init__(self, world, salt):
        self.world, self.salt = world, salt
        self.events = {}
        self.switches = {}

    def uuid(self, pid):
        return self.salt << 20 | pid

    def thread_uuid(self, tid):
        return self.salt << 20 | 1 << 18 | tid

    def counter_uuid(self, pid):
        return self.salt << 20 | 1 << 19 | pid

    def descriptors(self, ts):
        """The process, counter and thread tracks, stamped ts (a packet
        without a time would be placed at 0 of its clock)."""
        head = pb_int(P_TS, ts) + pb_int(P_SEQ, 1)
        out = []
        for pid in self.world.pids:
            process = pb_int(1, pid) + pb_bytes(6, 'app %d' % pid)
            out.append(pb_packet(head, pb_bytes(P_TRACK, pb_int(1, self.uuid(pid)) +
                                                             pb_bytes(3, process))))
            counter = pb_int(1, self.counter_uuid(pid)) + pb_bytes(2, 'queue depth') + \
                pb_int(5, self.uuid(pid)) + pb_bytes(8, b'')
            out.append(pb_packet(head, pb_bytes(P_TRACK, counter)))
        for pid, tid in self.world.threads:
            thread = pb_int(1, pid) + pb_int(2, tid) + pb_bytes(5, 'thread %d' % tid)
            track = pb_int(1, self.thread_uuid(tid)) + pb_int(5, self.uuid(pid)) + \
                pb_bytes(4, thread)
            out.append(pb_packet(head, pb_bytes(P_TRACK, track)))
        return out

    def track_event(self, ts, kind, uuid, name):
        key = (kind, uuid, name)
        body = self.events.get(key)
        if body is None:
            te = pb_int(TE_TYPE, kind) + pb_int(TE_TRACK, uuid)
            if kind != END:
                te += pb_bytes(TE_CATEGORY, 'cat%d' % (name % 3)) + pb_bytes(TE_NAME, NAMES[name])
            if kind == BEGIN and name % 4 == 0:
                te += pb_bytes(TE_ANNOTATION, pb_bytes(10, 'frame') + pb_int(4, name * 7))
            body = self.events[key] = pb_int(P_SEQ, 1) + pb_bytes(P_TRACK_EVENT, te)
        return pb_packet(pb_int(P_TS, ts), body)

    def counter(self, ts, pid, value):
        te = pb_int(TE_TYPE, COUNTER) + pb_int(TE_TRACK, self.counter_uuid(pid)) + \
            pb_int(TE_COUNTER, value)
        return pb_packet(pb_int(P_TS, ts), pb_int(P_SEQ, 1), pb_bytes(P_TRACK_EVENT, te))

    def sched_event(self, ts, prev, nxt, state, woken):
        key = (prev, nxt, state)
        switch = self.switches.get(key)
        if switch is None:
            comm = World.comm
            switch = self.switches[key] = pb_bytes(4, (
                pb_bytes(1, comm(prev) if prev else 'swapper') + pb_int(2, prev) +
                pb_int(3, 120) + pb_int(4, SWITCH_STATE[state]) +
                pb_bytes(5, comm(nxt) if nxt else 'swapper') + pb_int(6, nxt) + pb_int(7, 120)))
        out = b''
        if woken is not None:
            waking = pb_bytes(1, World.comm(woken)) + pb_int(2, woken) + pb_int(3, 120) + \
                pb_int(4, 1) + pb_int(5, 0)
            out = pb_bytes(2, pb_int(1, ts - 500) + pb_int(2, prev) + pb_bytes(20, waking))
        return out + pb_bytes(2, pb_int(1, ts) + pb_int(2, prev) + switch)

    def bundle(self, cpu, events):
        body = pb_int(1, cpu) + b''.join(self.sched_event(*ev) for ev in events)
        return pb_packet(pb_int(P_SEQ, 2), pb_bytes(P_FTRACE, body))


def clock_snapshot(boot, clocks):
    """A ClockSnapshot at BOOTTIME boot; clocks: {clock id: offset from
    BOOTTIME}."""
    body = b''.join(pb_bytes(1, pb_int(1, cid) + pb_int(2, boot + off))
                    for cid, off in sorted(clocks.items()))
    return pb_packet(pb_int(P_TS, boot), pb_int(P_SEQ, 3), pb_bytes(P_CLOCKS, body))


def proto_trace(size, seed=1, salt=1, boot0=10**12, clocks=None):
    """A proto trace of about `size` bytes starting at BOOTTIME boot0;
    returns (bytes, BOOTTIME just after its last event)."""
    rng = random.Random(seed)
    clocks = dict(clocks or {MONOTONIC: -5 * 10**9, REALTIME: 1_700_000_000 * 10**9})
    clocks[BOOTTIME] = 0
    world = World(salt * 10000)
    writer = ProtoWriter(world, salt)
    out = [clock_snapshot(boot0, clocks),
           pb_packet(pb_int(P_SEQ, 1), pb_int(P_SEQ_FLAGS, 1))] + writer.descriptors(boot0)
    written = sum(map(len, out))
    running = [0] * CPUS
    lo = boot0 + 1000
    block = 0
    while written < size:
        events = []
        for pid, tid in world.threads:
            for t, kind, name in thread_block(rng, lo):
                k = {'B': BEGIN, 'E': END, 'I': INSTANT}[kind]
                events.append((t, writer.track_event(t, k, writer.thread_uuid(tid), name)))
        for pid in world.pids:
            t = lo + rng.randrange(BLOCK_NS)
            events.append((t, writer.counter(t, pid, rng.randrange(100))))
        events.sort(key=lambda ev: ev[0])
        packets = [p for _, p in events]
        for cpu in range(CPUS):
            packets.append(writer.bundle(cpu, cpu_block(rng, world, cpu, lo, running)))
        block += 1
        if block % 16 == 0:
            packets.append(clock_snapshot(lo + BLOCK_NS - 1, clocks))
        written += sum(map(len, packets))
        out += packets
        lo += BLOCK_NS
    return b''.join(out), lo


# ----------------------------------------------------------------- json ----

def json_events(rng, world, lo_us, span_us):
    """Chrome JSON events of one block of span_us starting at lo_us (µs)."""
    out = []
    for pid, tid in world.threads:
        for t, kind, name in thread_block(rng, lo_us * 1000):
            ts = '%d.%03d' % divmod(t, 1000)
            if kind == 'I':
                out.append('{"ph":"i","s":"t","name":"%s","cat":"c","pid":%d,"tid":%d,"ts":%s}'
                           % (NAMES[name], pid, tid, ts))
            elif kind == 'B':
                out.append('{"ph":"B","name":"%s","cat":"c","pid":%d,"tid":%d,"ts":%s,'
                           '"args":{"n":%d,"at":%d}}' % (NAMES[name], pid, tid, ts, name, t))
            else:
                out.append('{"ph":"E","pid":%d,"tid":%d,"ts":%s}' % (pid, tid, ts))
        # A complete event of its own, in the gap before the block ends.
        out.append('{"ph":"X","name":"tail","pid":%d,"tid":%d,"ts":%d,"dur":0.5}'
                   % (pid, tid, lo_us + span_us - 1))
    for pid in world.pids:
        out.append('{"ph":"C","name":"queue","pid":%d,"ts":%d,"args":{"depth":%d}}'
                   % (pid, lo_us + rng.randrange(span_us), rng.randrange(50)))
    return out


def json_trace(size, seed=1, base=0, start_us=86_400 * 10**6):
    """A Chrome JSON trace of about `size` bytes; returns (text, µs just
    after its last event)."""
    rng = random.Random(seed)
    world = World(base)
    # Metadata events stamped at the start (one without ts would be at 0).
    events = ['{"ph":"M","name":"process_name","pid":%d,"tid":%d,"ts":%d,"args":{"name":"app %d"}}'
              % (pid, pid, start_us, pid) for pid in world.pids]
    events += ['{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"ts":%d,'
               '"args":{"name":"thread %d"}}' % (pid, tid, start_us, tid)
               for pid, tid in world.threads]
    written = sum(map(len, events))
    span_us = BLOCK_NS // 1000
    lo = start_us
    while written < size:
        block = json_events(rng, world, lo, span_us)
        written += sum(len(ev) + 2 for ev in block)
        events += block
        lo += span_us
    return '{"traceEvents":[\n' + ',\n'.join(events) + '\n]}\n', lo


# ------------------------------------------------------------- systrace ----

def systrace_line(tid, cpu, ts_ns, flags, body):
    comm = World.comm(tid) if tid else '<idle>'
    sec, ns = divmod(ts_ns, 10**9)
    return '%16s-%-5d [%03d] %s %5d.%06d: %s\n' % (comm, tid, cpu, flags, sec, ns // 1000, body)


def systrace_block(rng, world, lo, running):
    """The lines of one block: each thread's slices as atrace markers (µs
    apart) on its CPU, and each CPU's schedule."""
    lines = []
    for i, (pid, tid) in enumerate(world.threads):
        cpu = i % CPUS
        for t, kind, name in thread_block(rng, lo):
            t = t // 1000 * 1000
            if kind == 'B':
                body = 'tracing_mark_write: B|%d|%s' % (pid, NAMES[name])
            elif kind == 'E':
                body = 'tracing_mark_write: E|%d' % pid
            else:
                body = 'tracing_mark_write: C|%d|pending|%d' % (pid, name)
            lines.append((t, systrace_line(tid, cpu, t, '....', body)))
    for cpu in range(CPUS):
        for t, prev, nxt, state, woken in cpu_block(rng, world, cpu, lo, running):
            t = t // 1000 * 1000
            if woken is not None:
                lines.append((t - 1000, systrace_line(
                    prev, cpu, t - 1000, 'd..3', 'sched_wakeup: comm=%s pid=%d prio=120 '
                    'target_cpu=%03d' % (World.comm(woken), woken, cpu))))
            prev_comm = World.comm(prev) if prev else 'swapper/%d' % cpu
            next_comm = World.comm(nxt) if nxt else 'swapper/%d' % cpu
            lines.append((t, systrace_line(
                prev, cpu, t, 'd..2', 'sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 '
                'prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120'
                % (prev_comm, prev, state, next_comm, nxt))))
    lines.sort(key=lambda line: line[0])
    return [text for _, text in lines]


def systrace_trace(size, seed=1, start_ns=10 * 10**9):
    """A systrace text trace of about `size` bytes."""
    rng = random.Random(seed)
    world = World(0)
    out = ['# tracer: nop\n#\n']
    written = len(out[0])
    running = [0] * CPUS
    lo = start_ns
    while written < size:
        block = systrace_block(rng, world, lo, running)
        written += sum(map(len, block))
        out += block
        lo += BLOCK_NS
    return ''.join(out)


# ---------------------------------------------------------------- merge ----

def merge_trace(size, files, seed=1):
    """A stored ZIP of `files` members of about size/files bytes each: two
    proto traces in three, each on a machine of its own (named by the
    manifest) with REALTIME in its snapshots; the third a Chrome JSON trace
    put on the machine of the proto before it, pinned to that proto's
    BOOTTIME. Returns the ZIP's bytes."""
    rng = random.Random(seed)
    each = max(1, size // files)
    entries, members = [], []
    last_proto = None
    for i in range(files):
        if i % 3 == 2 and last_proto:
            name = 'trace_%03d.json' % i
            text, _ = json_trace(each, seed=seed * 1000 + i, base=i * 10000)
            ref, ref_boot, machine = last_proto
            # The JSON's first µs lands 5 ms after the reference's start.
            offset = ref_boot + 5_000_000 - 86_400 * 10**9
            entries.append({'path': name, 'machine': {'name': machine},
                            'clocks': {'sync_to': {'file': ref, 'clock': 'BOOTTIME'},
                                       'offset_ns': offset}})
            members.append((name, text.encode()))
            continue
        name = 'trace_%03d.pftrace' % i
        machine = 'machine-%d' % i
        boot0 = (1 + rng.randrange(1000)) * 10**9
        # Wall clocks a few seconds apart: the members overlap in REALTIME.
        clocks = {MONOTONIC: -rng.randrange(10**9), REALTIME: 1_700_000_000 * 10**9 - boot0 +
                  rng.randrange(3 * 10**9)}
        data, _ = proto_trace(each, seed=seed * 1000 + i, salt=i + 1, boot0=boot0, clocks=clocks)
        entries.append({'path': name, 'machine': {'name': machine}})
        members.append((name, data))
        last_proto = (name, boot0, machine)
    manifest = {'perfetto_manifest': {'version': 1,
                                      'trace_time': {'clock': 'BOOTTIME', 'file': members[0][0]},
                                      'files': entries}}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_STORED) as z:
        z.writestr('perfetto_manifest.json', json.dumps(manifest, indent=1))
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


def generate(kind, size, seed=1, files=1):
    """The bytes of a trace of `kind` and about `size` bytes."""
    if kind == 'proto':
        return proto_trace(size, seed)[0]
    if kind == 'json':
        return json_trace(size, seed)[0].encode()
    if kind == 'systrace':
        return systrace_trace(size, seed).encode()
    if kind == 'merge':
        return merge_trace(size, files, seed)
    raise ValueError('unknown kind ' + kind)


def write(kind, mib, path, seed=1, files=1):
    with open(path, 'wb') as f:
        f.write(generate(kind, int(mib * MIB), seed, files))
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('kind', choices=['proto', 'json', 'systrace', 'merge'])
    parser.add_argument('mib', type=float)
    parser.add_argument('out')
    parser.add_argument('--files', type=int, default=10)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    write(args.kind, args.mib, args.out, args.seed, args.files)


if __name__ == '__main__':
    main()
