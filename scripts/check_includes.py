#!/usr/bin/env python3
"""Checks the folder plan of src/: includes go down the data flow, and no
source file outgrows a room.

The folders of src/ are stages, from the top (the command line) to the
bottom (allocation and errors):

    cli -> server -> core -> import -> (manifest, sql) -> model
        -> (io, clock, storage, sort) -> base

A file may include headers of its own folder and of folders below it, never
of a folder above it or beside it. Under import/, each format's folder is a
room of its own: it may include import/importer.h and its own files, not
another format's, except the sub-importers listed in SHARED (a format that
embeds another, as Chrome JSON embeds systrace text). Exit status 1 and one
line per wrong include otherwise.

Importers write tables only through the model: no file under import/
calls a storage setter or appends a row itself (WRITES).

No file in src/ is over MAX_LINES lines, except the tables of data listed in
DATA (generated or transcribed schema, not logic).
"""
import os
import re
import sys

RANK = {
    "cli": 7,
    "server": 6,
    "core": 5,
    "import": 4,
    "manifest": 3, "sql": 3,
    "model": 2,
    "io": 1, "clock": 1, "storage": 1, "sort": 1,
    "base": 0,
}
SHARED = {"import/systrace/systrace.h"}
MAX_LINES = 900
DATA = {"model/ftrace_desc_table.c", "model/syscall_table.c"}
WRITES = re.compile(r"\bstorage_(set_\w+|table_append)\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def room(path):
    """The folder a src/-relative path belongs to: ('import', 'json') for
    import/json/..., ('import', None) for import/importer.h."""
    parts = path.split("/")
    if len(parts) < 2:
        return None
    sub = parts[1] if parts[0] == "import" and len(parts) > 2 else None
    return parts[0], sub


def wrong(source, target):
    """Why source (a src/-relative file) must not include target, or None."""
    src, dst = room(source), room(target)
    if src is None or dst is None or dst[0] not in RANK:
        return None  # the public header (weft.h) or a system-like path
    if src[0] not in RANK:
        return "folder %s is not in the data flow" % src[0]
    if src[0] == dst[0]:
        if src[1] and dst[1] and src[1] != dst[1] and target not in SHARED:
            return "importer %s includes importer %s" % (src[1], dst[1])
        return None
    if RANK[dst[0]] < RANK[src[0]]:
        return None
    if RANK[dst[0]] == RANK[src[0]]:
        return "%s and %s are side by side" % (src[0], dst[0])
    return "%s is above %s" % (dst[0], src[0])


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    src_dir = os.path.join(root, "src")
    problems = []
    for folder, _, files in os.walk(src_dir):
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, src_dir)
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
            if len(lines) > MAX_LINES and rel not in DATA:
                problems.append("src/%s: %d lines, over %d" % (rel, len(lines), MAX_LINES))
            for number, line in enumerate(lines, 1):
                if rel.startswith("import/") and WRITES.search(line):
                    problems.append("src/%s:%d: an importer writes a table column "
                                    "itself; write through the model" % (rel, number))
                m = INCLUDE.match(line)
                why = m and wrong(rel, m.group(1))
                if why:
                    problems.append("src/%s:%d: #include \"%s\": %s"
                                    % (rel, number, m.group(1), why))
    for p in problems:
        print(p)
    if problems:
        print("%d problem(s) with the folder plan" % len(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
