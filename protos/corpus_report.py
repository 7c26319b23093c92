#!/usr/bin/env python3
"""Checks protos/weft_trace.proto against real Perfetto traces.

For every proto trace found under the given directories (files named `trace`;
ZIP members are extracted to a temporary folder), this:
  1. decodes it with `protoc --decode=perfetto.protos.Trace` and our schema;
  2. walks the raw bytes with the schema (compiled by protoc into a
     descriptor set, read here with a tiny wire decoder) and records every
     field number that is not declared in a message we declare, and every
     declared field whose wire type disagrees with our declaration;
  3. for traces with a `trace.textproto` next to them, re-encodes the text
     with our schema and compares the bytes with the `trace` file.

Usage: protos/corpus_report.py [--verbose] DIR...
Prints a summary (unknown fields by message, sorted by frequency).
Needs only python3 and protoc.
"""
import collections
import os
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "weft_trace.proto")
ROOT_MSG = "perfetto.protos.Trace"

# ---------------------------------------------------------------- wire ----


def read_varint(b, i):
    v = shift = 0
    for n in range(10):
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v & 0xFFFFFFFFFFFFFFFF, i
    raise ValueError("varint too long")


def fields(b):
    """Yields (number, wire_type, value) over a message's bytes."""
    i = 0
    while i < len(b):
        tag, i = read_varint(b, i)
        num, wt = tag >> 3, tag & 7
        if num == 0:
            raise ValueError("field 0")
        if wt == 0:
            v, i = read_varint(b, i)
        elif wt == 1:
            if i + 8 > len(b):
                raise ValueError("truncated fixed64")
            v = b[i:i + 8]
            i += 8
        elif wt == 5:
            if i + 4 > len(b):
                raise ValueError("truncated fixed32")
            v = b[i:i + 4]
            i += 4
        elif wt == 2:
            n, i = read_varint(b, i)
            if i + n > len(b):
                raise ValueError("length past end")
            v = b[i:i + n]
            i += n
        else:
            raise ValueError("bad wire type %d" % wt)
        yield num, wt, v


# ---------------------------------------------------------- descriptors ----

# FieldDescriptorProto.Type values
T_DOUBLE, T_FLOAT, T_INT64, T_UINT64, T_INT32, T_FIXED64, T_FIXED32 = 1, 2, 3, 4, 5, 6, 7
T_BOOL, T_STRING, T_GROUP, T_MESSAGE, T_BYTES, T_UINT32, T_ENUM = 8, 9, 10, 11, 12, 13, 14
T_SFIXED32, T_SFIXED64, T_SINT32, T_SINT64 = 15, 16, 17, 18
WIRE_OF = {T_DOUBLE: 1, T_FLOAT: 5, T_INT64: 0, T_UINT64: 0, T_INT32: 0,
           T_FIXED64: 1, T_FIXED32: 5, T_BOOL: 0, T_STRING: 2, T_MESSAGE: 2,
           T_BYTES: 2, T_UINT32: 0, T_ENUM: 0, T_SFIXED32: 5, T_SFIXED64: 1,
           T_SINT32: 0, T_SINT64: 0}


def load_schema():
    """Returns {full_message_name: {number: (name, type, type_name)}}."""
    with tempfile.NamedTemporaryFile(suffix=".pb") as out:
        subprocess.run(["protoc", "-I", HERE, "--descriptor_set_out=" + out.name,
                        PROTO], check=True)
        data = open(out.name, "rb").read()
    schema = {}

    def walk_message(b, prefix):
        name, flds, nested = None, {}, []
        for num, wt, v in fields(b):
            if num == 1:
                name = v.decode()
            elif num == 2:
                fname = ftype = tname = fnum = None
                for n2, _, v2 in fields(v):
                    if n2 == 1:
                        fname = v2.decode()
                    elif n2 == 3:
                        fnum = v2
                    elif n2 == 5:
                        ftype = v2
                    elif n2 == 6:
                        tname = v2.decode().lstrip(".")
                flds[fnum] = (fname, ftype, tname)
            elif num == 3:
                nested.append(v)
        full = prefix + "." + name
        schema[full] = flds
        for n in nested:
            walk_message(n, full)

    for num, _, fdp in fields(data):  # FileDescriptorSet.file
        package = ""
        msgs = []
        for n, _, v in fields(fdp):
            if n == 2:
                package = v.decode()
            elif n == 4:
                msgs.append(v)
        for m in msgs:
            walk_message(m, package)
    return schema


# ------------------------------------------------------------- checking ----

class Report:
    def __init__(self):
        self.unknown = collections.Counter()      # (msg, num, wt) -> count
        self.unknown_files = collections.defaultdict(set)
        self.mismatch = collections.Counter()     # (msg, field, wt) -> count
        self.errors = []
        self.decoded = self.decode_failed = 0
        self.text_same = self.text_diff = self.text_fail = 0
        self.text_fail_msgs = collections.Counter()
        self.text_diff_files = []
        self.files = 0


def check_message(schema, msg, b, rep, path, depth=0):
    if depth > 64:
        return
    decl = schema[msg]
    for num, wt, v in fields(b):
        f = decl.get(num)
        if f is None:
            rep.unknown[(msg, num, wt)] += 1
            rep.unknown_files[(msg, num, wt)].add(path)
            continue
        name, ftype, tname = f
        want = WIRE_OF.get(ftype)
        if wt != want and not (wt == 2 and want in (0, 1, 5)):  # packed
            rep.mismatch[(msg, name, wt)] += 1
            continue
        if ftype == T_MESSAGE and tname in schema:
            check_message(schema, tname, v, rep, path, depth + 1)


def protoc_decode(path):
    with open(path, "rb") as f:
        r = subprocess.run(["protoc", "-I", HERE, "--decode=" + ROOT_MSG, PROTO],
                           stdin=f, capture_output=True)
    return r.returncode == 0


def protoc_encode(text_path):
    with open(text_path, "rb") as f:
        r = subprocess.run(["protoc", "-I", HERE, "--encode=" + ROOT_MSG, PROTO],
                           stdin=f, capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode(errors="replace")


def looks_like_proto_trace(data):
    # A Trace starts with field 1, wire type 2 (0x0a); JSON may start with
    # a newline (also 0x0a), so rule out text starting with { or [.
    if len(data) < 2 or data[0] != 0x0A:
        return False
    head = data[:64].lstrip()
    return not head.startswith((b"{", b"["))


def check_file(schema, path, rep, verbose):
    data = open(path, "rb").read()
    if not looks_like_proto_trace(data):
        return
    rep.files += 1
    if protoc_decode(path):
        rep.decoded += 1
    else:
        rep.decode_failed += 1
    try:
        check_message(schema, ROOT_MSG, data, rep, path)
    except ValueError as e:
        rep.errors.append("%s: %s" % (path, e))
    text = os.path.join(os.path.dirname(path), "trace.textproto")
    if os.path.basename(path) == "trace" and os.path.exists(text):
        rc, out, err = protoc_encode(text)
        if rc != 0:
            rep.text_fail += 1
            first = err.strip().splitlines()[0] if err.strip() else "?"
            rep.text_fail_msgs[first.split(": ", 1)[-1]] += 1
            if verbose:
                print("encode failed %s: %s" % (text, first))
        elif out == data:
            rep.text_same += 1
        else:
            rep.text_diff += 1
            rep.text_diff_files.append(path)


def collect(dirs, tmp):
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in sorted(names):
                p = os.path.join(root, n)
                if n == "trace":
                    with open(p, "rb") as f:
                        magic = f.read(4)
                    if magic == b"PK\x03\x04":
                        out = os.path.join(tmp, os.path.relpath(p, "/").replace("/", "_"))
                        try:
                            with zipfile.ZipFile(p) as z:
                                z.extractall(out)
                        except (zipfile.BadZipFile, OSError, ValueError):
                            continue
                        for r2, _, n2 in os.walk(out):
                            for m in sorted(n2):
                                yield os.path.join(r2, m)
                    else:
                        yield p


def main(argv):
    verbose = "--verbose" in argv
    dirs = [a for a in argv if a != "--verbose"]
    if not dirs:
        print(__doc__)
        return 2
    schema = load_schema()
    rep = Report()
    with tempfile.TemporaryDirectory() as tmp:
        for p in collect(dirs, tmp):
            check_file(schema, p, rep, verbose)
    print("proto traces checked: %d" % rep.files)
    print("protoc --decode with weft_trace.proto: %d ok, %d failed"
          % (rep.decoded, rep.decode_failed))
    print("textproto re-encode: %d byte-identical, %d differ, %d failed to encode"
          % (rep.text_same, rep.text_diff, rep.text_fail))
    for msg, n in rep.text_fail_msgs.most_common():
        print("  encode error x%d: %s" % (n, msg))
    for p in rep.text_diff_files:
        print("  differs: %s" % p)
    for e in rep.errors:
        print("wire error: %s" % e)
    if rep.mismatch:
        print("declared fields with a different wire type in the corpus:")
        for (msg, name, wt), n in rep.mismatch.most_common():
            print("  %s.%s wire type %d x%d" % (msg, name, wt, n))
    print("unknown fields in declared messages (message field#/wiretype: "
          "occurrences, files):")
    by_msg = collections.defaultdict(list)
    for (msg, num, wt), n in rep.unknown.items():
        by_msg[msg].append((n, num, wt, len(rep.unknown_files[(msg, num, wt)])))
    for msg in sorted(by_msg, key=lambda m: -sum(x[0] for x in by_msg[m])):
        items = sorted(by_msg[msg], reverse=True)
        print("  %s: %s" % (msg.replace("perfetto.protos.", ""),
                            ", ".join("%d/%d: %d, %d" % (num, wt, n, nf)
                                      for n, num, wt, nf in items)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
