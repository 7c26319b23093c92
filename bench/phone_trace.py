#!/usr/bin/env python3
"""A phone's system trace of a given size, for load benchmarks: the data
kinds of an Android recording that the shared kit's proto generator does
not write, in the proportions a phone's trace has them.

    bench/phone_trace.py MIB OUT.pftrace

Deterministic. One process tree (60 processes, 240 threads) and one set
of interned callstacks (30 mappings, 2,000 frames, 600 callstacks) come
first; then each 10 ms of trace time holds, per CPU of 8, an ftrace bundle
of sched_switch, cpu_frequency, cpu_idle, rss_stat and gpu_frequency
events; an android_log packet of logcat lines; battery counters; energy
of 12 power rails; GPU counter samples; and perf samples (PerfSample)
with callstacks. Field numbers are those of Perfetto's trace protos."""
import os
import random
import struct
import sys

MiB = 1 << 20
CPUS = 8
RAILS = ['S%dM_VDD_%s' % (i, n) for i, n in enumerate(
    ['CPUCL0', 'CPUCL1', 'CPUCL2', 'MIF', 'INT', 'TPU', 'G3D', 'DISP', 'AOC', 'MODEM',
     'CAM', 'DDR'])]
TAGS = ['ActivityManager', 'chatty', 'InputDispatcher', 'SurfaceFlinger', 'WifiHAL',
        'BluetoothGatt', 'libc', 'Zygote', 'PackageManager', 'ConnectivityService']
WORDS = ['start', 'proc', 'for', 'activity', 'service', 'broadcast', 'binder', 'transaction',
         'failed', 'ok', 'window', 'focus', 'display', 'frame', 'dropped', 'wakelock',
         'acquired', 'released', 'uid', 'pid', 'config', 'changed']


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'e2e'))
from weft_e2e import pb_bytes as f_bytes, pb_int as f_int, varint  # noqa: E402 (wire helpers)


def f_float(number, value):
    return varint(number << 3 | 5) + struct.pack('<f', value)


def packet(*fields):
    return f_bytes(1, b''.join(fields))


def clock_snapshot(boottime):
    """BOOTTIME (6, trace time) `boottime` is REALTIME (1) 1.7e18 + boottime:
    logcat lines are on REALTIME."""
    clocks = (f_bytes(1, f_int(1, 6) + f_int(2, boottime)) +
              f_bytes(1, f_int(1, 1) + f_int(2, 1_700_000_000 * 10**9 + boottime)))
    return packet(f_int(8, boottime), f_bytes(6, clocks))


class Phone:
    """The world the trace describes: processes, threads, stacks."""

    def __init__(self, rng):
        self.rng = rng
        self.pids = [1000 + 37 * i for i in range(60)]
        self.threads = [(pid + k, pid) for pid in self.pids for k in range(4)]
        self.comms = {tid: 'thread-%d' % tid for tid, _ in self.threads}
        self.mm_ids = {pid: 0x1000 + i for i, pid in enumerate(self.pids)}

    def process_tree(self, ts):
        procs = b''.join(f_bytes(1, f_int(1, pid) + f_int(2, 1) +
                                 f_bytes(3, 'com.example.app%d' % i))
                         for i, pid in enumerate(self.pids))
        threads = b''.join(f_bytes(2, f_int(1, tid) + f_bytes(2, self.comms[tid]) +
                                   f_int(3, pid))
                           for tid, pid in self.threads)
        return packet(f_int(8, ts), f_bytes(2, procs + threads))

    def interned_stacks(self, ts, seq):
        """Interned data clearing sequence seq's state: function names,
        mappings, frames and callstacks (InternedData 5, 16, 17, 19, 6, 7)."""
        rng = self.rng
        data = [f_bytes(17, f_int(1, 1) + f_bytes(2, 'system')),
                f_bytes(17, f_int(1, 2) + f_bytes(2, 'lib'))]
        for m in range(1, 31):
            data.append(f_bytes(17, f_int(1, 2 + m) + f_bytes(2, 'libmod%d.so' % m)))
            data.append(f_bytes(16, f_int(1, m) + f_bytes(2, bytes([m, 0xab, 0xcd]))))
            data.append(f_bytes(19, f_int(1, m) + f_int(2, m) + f_int(4, m << 20) +
                                f_int(5, (m << 20) + 0x80000) + f_int(7, 1) + f_int(7, 2) +
                                f_int(7, 2 + m)))
        for fn in range(1, 801):
            data.append(f_bytes(5, f_int(1, fn) + f_bytes(2, '_ZN7android%dfunction%dEv' %
                                                        (fn % 17, fn))))
        for fr in range(1, 2001):
            data.append(f_bytes(6, f_int(1, fr) + f_int(2, rng.randrange(1, 801)) +
                                f_int(3, rng.randrange(1, 31)) + f_int(4, rng.randrange(1 << 19))))
        for cs in range(1, 601):
            frames = b''.join(f_int(2, rng.randrange(1, 2001))
                              for _ in range(rng.randrange(5, 16)))
            data.append(f_bytes(7, f_int(1, cs) + frames))
        return packet(f_int(8, ts), f_int(10, seq), f_int(13, 1), f_bytes(12, b''.join(data)))

    def ftrace_bundle(self, cpu, lo, hi, running):
        """sched_switch (4), cpu_frequency (11), cpu_idle (13), rss_stat
        (313) and gpu_frequency (332) events of one CPU in [lo, hi)."""
        rng = self.rng
        events = []
        ts = lo
        while True:
            ts += rng.randrange(20_000, 200_000)
            if ts >= hi:
                break
            roll = rng.random()
            if roll < 0.6:
                tid, pid = rng.choice(self.threads)
                prev = running[cpu]
                body = (f_bytes(1, self.comms[prev]) + f_int(2, prev) + f_int(3, 120) +
                        f_int(4, rng.choice((0, 1, 2))) + f_bytes(5, self.comms[tid]) +
                        f_int(6, tid) + f_int(7, 120))
                events.append(f_int(1, ts) + f_int(2, prev) + f_bytes(4, body))
                running[cpu] = tid
            elif roll < 0.72:
                events.append(f_int(1, ts) + f_int(2, 0) +
                              f_bytes(11, f_int(1, rng.choice((300000, 1200000, 2400000))) +
                                      f_int(2, cpu)))
            elif roll < 0.82:
                events.append(f_int(1, ts) + f_int(2, 0) +
                              f_bytes(13, f_int(1, rng.choice((0, 1, 4294967295))) +
                                      f_int(2, cpu)))
            elif roll < 0.97:
                tid, pid = rng.choice(self.threads)
                body = (f_int(1, rng.randrange(4)) + f_int(2, rng.randrange(1 << 30)) +
                        f_int(3, 1) + f_int(4, self.mm_ids[pid]))
                events.append(f_int(1, ts) + f_int(2, tid) + f_bytes(313, body))
            else:
                events.append(f_int(1, ts) + f_int(2, 0) +
                              f_bytes(332, f_int(1, 0) + f_int(2, rng.choice((150, 400, 800)))))
        return packet(f_bytes(1, f_int(1, cpu) + b''.join(f_bytes(2, e) for e in events)),
                      f_int(10, 1))

    def logcat(self, lo, hi, count):
        rng = self.rng
        events = []
        for ts in sorted(rng.randrange(lo, hi) for _ in range(count)):
            tid, pid = rng.choice(self.threads)
            msg = ' '.join(rng.choice(WORDS) for _ in range(rng.randrange(3, 14)))
            events.append(f_bytes(1, f_int(1, rng.choice((0, 3, 4))) + f_int(2, pid) +
                                  f_int(3, tid) + f_int(4, 10000 + pid % 97) +
                                  f_int(5, 1_700_000_000 * 10**9 + ts) +
                                  f_bytes(6, rng.choice(TAGS)) + f_int(7, rng.randrange(2, 8)) +
                                  f_bytes(8, msg)))
        return packet(f_int(8, hi), f_bytes(39, b''.join(events)))

    def power(self, ts, step, first=False):
        rng = self.rng
        battery = packet(f_int(8, ts), f_bytes(38, f_int(1, 3_000_000 - step) +
                                               f_float(2, 80.0 - step / 1e5) +
                                               f_int(3, -rng.randrange(100_000, 900_000)) +
                                               f_int(4, -400_000)))
        energy = b''.join(f_bytes(2, f_int(1, i) + f_int(2, ts // 1_000_000) +
                                  f_int(3, step * 1000 + i * 7 + rng.randrange(1000)))
                          for i in range(len(RAILS)))
        if first:  # the rails are described in the first packet of energy data
            energy = b''.join(f_bytes(1, f_int(1, i) + f_bytes(2, name) + f_bytes(3, 'sys'))
                              for i, name in enumerate(RAILS)) + energy
        return battery + packet(f_int(8, ts), f_bytes(40, energy))

    @staticmethod
    def gpu_counter_specs(ts):
        specs = b''.join(f_bytes(1, f_int(1, c) + f_bytes(2, name)) for c, name in
                         enumerate(('gpu_busy', 'alu_utilization', 'mem_read_bw'), 1))
        return packet(f_int(8, ts), f_bytes(52, f_bytes(1, specs) + f_int(3, 0)), f_int(10, 3))

    def gpu_counters(self, ts):
        samples = b''.join(f_bytes(2, f_int(1, c) + f_int(2, self.rng.randrange(100)))
                           for c in (1, 2, 3))
        return packet(f_int(8, ts), f_bytes(52, samples + f_int(3, 0)), f_int(10, 3))

    def perf_samples(self, lo, hi, count, seq):
        rng = self.rng
        out = []
        for ts in sorted(rng.randrange(lo, hi) for _ in range(count)):
            tid, pid = rng.choice(self.threads)
            body = (f_int(1, rng.randrange(CPUS)) + f_int(2, pid) + f_int(3, tid) +
                    f_int(4, rng.randrange(1, 601)) + f_int(5, 2))
            out.append(packet(f_int(8, ts), f_int(10, seq), f_int(13, 2), f_bytes(66, body)))
        return b''.join(out)


def generate(size, out, seed=7):
    rng = random.Random(seed)
    phone = Phone(rng)
    t0 = 10 ** 12
    out.write(clock_snapshot(t0) + phone.process_tree(t0) + phone.interned_stacks(t0, 2) +
              phone.gpu_counter_specs(t0))
    written, step = 0, 0
    running = [phone.threads[0][0]] * CPUS
    while written < size:
        lo = t0 + step * 10_000_000
        hi = lo + 10_000_000
        chunk = b''.join(phone.ftrace_bundle(cpu, lo, hi, running) for cpu in range(CPUS))
        chunk += phone.logcat(lo, hi, 60)
        chunk += phone.power(hi, step, first=step == 0)
        chunk += b''.join(phone.gpu_counters(lo + k * 1_000_000) for k in range(10))
        chunk += phone.perf_samples(lo, hi, 80, 2)
        out.write(chunk)
        written += len(chunk)
        step += 1


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.split('\n\n')[1].strip())
    with open(sys.argv[2], 'wb') as out:
        generate(int(sys.argv[1]) * MiB, out)


if __name__ == '__main__':
    main()
