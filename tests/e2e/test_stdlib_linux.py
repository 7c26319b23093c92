"""End-to-end: the linux.* standard-library modules (cpu frequency, idle,
utilization, threads, memory, irqs, block io), on small generated traces
whose answers were worked out by hand."""
import os

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

IRQ_HANDLER_ENTRY, IRQ_HANDLER_EXIT = 36, 37
SOFTIRQ_ENTRY, SOFTIRQ_EXIT = 24, 25
BLOCK_IO_START, BLOCK_IO_DONE = 546, 547


def ftrace_event(ts, pid, number, *fields):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) +
                    pb_bytes(number, b''.join(fields)))


def bundle(cpu, *events):
    return pb_packet(pb_bytes(1, pb_int(1, cpu) + b''.join(events)), pb_int(10, 1))


def process_tree(ts, processes):
    """A ProcessTree packet: processes are (pid, ppid, name)."""
    body = b''.join(pb_bytes(1, pb_int(1, pid) + pb_int(2, ppid) + pb_bytes(3, name))
                    for pid, ppid, name in processes)
    return pb_packet(pb_int(8, ts), pb_bytes(2, body))


def process_stats(ts, pid, **kb):
    """A ProcessStats packet for one process; kb: anon, file, shmem, swap."""
    numbers = {'anon': 4, 'file': 5, 'shmem': 6, 'swap': 7}
    body = pb_int(1, pid) + b''.join(pb_int(numbers[k], v) for k, v in kb.items())
    return pb_packet(pb_int(8, ts), pb_bytes(9, pb_bytes(1, body)))


def kernel_trace():
    """Processes (kthreadd, a kworker, an app), irqs on two cpus, memory
    counters of two processes and block io on two devices."""
    irq = lambda ts, n, name: ftrace_event(ts, 0, IRQ_HANDLER_ENTRY, pb_int(1, n),
                                           pb_bytes(2, name))
    irq_exit = lambda ts, n: ftrace_event(ts, 0, IRQ_HANDLER_EXIT, pb_int(1, n),
                                          pb_int(2, 1))
    soft = lambda ts, number, vec: ftrace_event(ts, 0, number, pb_int(1, vec))
    block = lambda ts, number, dev: ftrace_event(ts, 7, number, pb_int(1, dev),
                                                 pb_int(2, 8), pb_bytes(6, 'RA'))
    return b''.join([
        process_tree(500, [(1, 0, 'init'), (2, 0, 'kthreadd'),
                           (5, 2, 'kworker/0:1'), (100, 1, 'app')]),
        process_stats(1000, 100, anon=100, file=50, shmem=10, swap=5),
        process_stats(1000, 200, anon=40, file=20),
        process_stats(2000, 100, anon=80, file=50, shmem=10, swap=5),
        process_stats(3000, 100, anon=200, file=60, shmem=0, swap=0),
        bundle(0, irq(1000, 5, 'timer'), irq(1100, 6, 'nested'), irq_exit(1150, 6),
               irq_exit(1300, 5), soft(1400, SOFTIRQ_ENTRY, 1),
               soft(1600, SOFTIRQ_EXIT, 1)),
        bundle(1, irq(1200, 9, 'ufs'), irq_exit(1250, 9),
               block(1000, BLOCK_IO_START, 45824), block(1200, BLOCK_IO_START, 2049),
               block(1300, BLOCK_IO_START, 45824), block(2400, BLOCK_IO_DONE, 45824),
               block(2600, BLOCK_IO_DONE, 45824), block(3000, BLOCK_IO_DONE, 2049)),
    ])


if __name__ == '__main__':
    e.main()
