#!/usr/bin/env python3
"""Asks Perfetto's trace_processor_shell (the reference) how it prints a data
source config in trace_config_pbtxt, field by field, and writes the schema
tables of src/import/proto/proto_config_text.c for it: each field's number,
name and type, nested messages, and enum value names.

    scripts/config_schema_probe.py [--reference RUN] DS_FIELD:PREFIX ...

DS_FIELD is the config's field number in DataSourceConfig (100 ftrace_config,
103 process_stats_config, ...); PREFIX names the C tables. For every field
number 1..40 the probe writes a config holding only that field, as a varint
1, as the string "ab" and as an empty message, and reads which one the
reference prints by name; a varint field printing -1 for 2^64-1 is signed;
an enum's names are read for values 0..399.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'e2e'))
from weft_e2e import pb_bytes, pb_int, pb_packet  # noqa: E402

QUERY = "select str_value from metadata where name = 'trace_config_pbtxt'"


class Probe:
    def __init__(self, reference, workdir):
        self.reference = reference
        self.trace = os.path.join(workdir, 'config.pb')

    def render(self, path, bodies):
        """The printed lines inside each config's innermost message."""
        def wrap(body):
            for field in reversed(path):
                body = pb_bytes(field, body)
            return body
        sources = b''.join(pb_bytes(2, pb_bytes(1, wrap(b))) for b in bodies)
        with open(self.trace, 'wb') as f:
            f.write(pb_packet(pb_int(8, 10), pb_int(10, 1), pb_bytes(33, sources)))
        out = subprocess.run([self.reference, '-Q', QUERY, self.trace],
                             capture_output=True, text=True, check=True).stdout
        return [[line.strip() for line in block.splitlines()][2 + len(path):]
                for block in out.split('data_sources {')[1:]]

    def fields(self, path, depth=0, max_field=40):
        numbers = range(1, max_field + 1)
        as_int = self.render(path, [pb_int(n, 1) for n in numbers])
        as_str = self.render(path, [pb_bytes(n, 'ab') for n in numbers])
        as_msg = self.render(path, [pb_bytes(n, b'') for n in numbers])
        out = []
        for i, n in enumerate(numbers):
            name, value = named(as_int[i])
            if name:
                kind = 'BOOL' if value == 'true' else 'UINT' if value == '1' else 'ENUM'
                if kind == 'UINT' and self.render(path, [pb_int(n, -1)])[0][0].endswith(': -1'):
                    kind = 'INT64'
                out.append((n, name, kind, self.enum(path, n) if kind == 'ENUM' else None, None))
                continue
            name, value = named(as_str[i])
            if name and value == '"ab"':
                out.append((n, name, 'STRING', None, None))
                continue
            name, value = named(as_msg[i])
            if name and value is None and depth < 3:
                out.append((n, name, 'MSG', None, self.fields(path + [n], depth + 1)))
        return out

    def enum(self, path, number, max_value=400):
        names = []
        for lines in self.render(path, [pb_int(number, v) for v in range(max_value)]):
            m = re.match(r'[a-z_0-9]+: ([A-Za-z_0-9]+)$', lines[0] if lines else '')
            names.append(m.group(1) if m and not m.group(1).isdigit() else None)
        while names and names[-1] is None:
            names.pop()
        return names


def named(lines):
    m = re.match(r'([a-z_0-9]+)(: (.*)| \{)$', lines[0] if lines else '')
    if not m or m.group(1).isdigit():
        return None, None
    return m.group(1), m.group(3)


def ident(s):
    return re.sub(r'[^a-z0-9_]', '_', s.lower())


def emit(prefix, fields, out):
    for n, name, kind, names, sub in fields:
        if kind == 'ENUM':
            items = ', '.join('"%s"' % x if x else 'NULL' for x in names)
            line = 'static const char *const pt_%s_%s[] = {' % (prefix, ident(name))
            if len(line) > 96:
                line = 'static const char *const\n    pt_%s_%s[] = {' % (prefix, ident(name))
            out.append(line)
            out.extend(textwrap.wrap(items, 92, initial_indent='    ', subsequent_indent='    '))
            out.append('};')
        if kind == 'MSG':
            emit(prefix + '_' + ident(name), sub, out)
    line = 'static const proto_text_field pt_%s_fields[] = {' % prefix
    if len(line) > 96:
        line = 'static const proto_text_field\n    pt_%s_fields[] = {' % prefix
    out.append(line)
    for n, name, kind, names, sub in fields:
        if kind == 'ENUM':
            line = '    {%d, "%s", PT_ENUM_OF(pt_%s_%s)},' % (n, name, prefix, ident(name))
            if len(line) > 96:
                line = '    {%d, "%s",\n     PT_ENUM_OF(pt_%s_%s)},' % (n, name, prefix, ident(name))
            out.append(line)
        elif kind == 'MSG':
            line = '    {%d, "%s", PT_MSG, &pt_%s_%s, NULL, 0},' % (n, name, prefix, ident(name))
            if len(line) > 96:
                line = '    {%d, "%s", PT_MSG,\n     &pt_%s_%s, NULL, 0},' % (n, name, prefix,
                                                                    ident(name))
            out.append(line)
        else:
            out.append('    {%d, "%s", PT_%s, NULL, NULL, 0},' % (n, name, kind))
    out.append('};')
    line = 'static const proto_text_msg pt_%s = PT_FIELDS(pt_%s_fields);' % (prefix, prefix)
    if len(line) > 96:
        line = 'static const proto_text_msg pt_%s =\n    PT_FIELDS(pt_%s_fields);' % (prefix, prefix)
    out.append(line)
    out.append('')


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--reference', default=os.path.join(root, '..', 'shared', 'reference', 'run'))
    ap.add_argument('configs', nargs='+', help='DS_FIELD:PREFIX')
    args = ap.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as workdir:
        probe = Probe(args.reference, workdir)
        for spec in args.configs:
            number, prefix = spec.split(':')
            emit(prefix, probe.fields([int(number)]), out)
    print('\n'.join(out).rstrip())


if __name__ == '__main__':
    main()
