#!/usr/bin/env python3
"""Asks Perfetto's trace_processor_shell (the reference) which /proc key name
it gives each MeminfoCounters and VmstatCounters enum value of a SysStats
packet, and writes src/import/proto/proto_sys_stats_keys.c with the two
tables.

    scripts/sys_stats_keys_probe.py [--reference RUN] [--out FILE]

The probe writes one SysStats packet holding every key 0..499 of both kinds
with the key itself as the value, then reads back each counter track's name
and value: the value names the key (meminfo values are in kB, so divided by
1024). Keys the reference does not know make no track; the tables end at the
last known key.
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'e2e'))
from weft_e2e import pb_bytes, pb_int, pb_packet  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
MAX_KEY = 500
QUERY = ("select t.type, t.name, cast(c.value as int) from counter_track t "
         "join counter c on c.track_id = t.id order by t.id")


def probe(reference):
    entries = b''
    for key in range(MAX_KEY):
        entries += pb_bytes(1, pb_int(1, key) + pb_int(2, key))  # meminfo
        entries += pb_bytes(2, pb_int(1, key) + pb_int(2, key))  # vmstat
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'keys.pb')
        with open(trace, 'wb') as f:
            f.write(pb_packet(pb_int(8, 1000), pb_int(10, 1), pb_bytes(7, entries)))
        out = subprocess.run([reference, '-Q', QUERY, trace], capture_output=True,
                             text=True, check=True).stdout
    names = {'meminfo': {}, 'vmstat': {}}
    for line in out.splitlines()[1:]:
        kind, name, value = line.split(',')
        key = int(value) // 1024 if kind == '"meminfo"' else int(value)
        names[kind.strip('"')][key] = name.strip('"')
    return names


def table(c_name, keys):
    last = max(keys)
    assert sorted(keys) == list(range(last + 1)), 'the known keys are not 0..N'
    rows = ''.join('    "%s",\n' % keys[k] for k in range(last + 1))
    return 'const char *const %s[%d] = {\n%s};\n' % (c_name, last + 1, rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reference', default=os.path.join(ROOT, '..', 'shared', 'reference', 'run'))
    ap.add_argument('--out', default=os.path.join(ROOT, 'src', 'import', 'proto',
                                                  'proto_sys_stats_keys.c'))
    args = ap.parse_args()
    names = probe(args.reference)
    with open(args.out, 'w') as f:
        f.write('/* The /proc key names of SysStats meminfo and vmstat keys, by enum value.\n'
                ' * Written by scripts/sys_stats_keys_probe.py from the reference\'s answers;\n'
                ' * do not edit. */\n'
                '#include "import/proto/proto_sys_stats.h"\n\n')
        f.write(table('proto_sys_stats_meminfo_keys', names['meminfo']))
        f.write('\n')
        f.write(table('proto_sys_stats_vmstat_keys', names['vmstat']))
    print('meminfo keys: %d, vmstat keys: %d' % (len(names['meminfo']), len(names['vmstat'])))


if __name__ == '__main__':
    main()
