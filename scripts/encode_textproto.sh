#!/bin/sh
# Encodes a Perfetto text-format trace into a binary trace with weft's own
# schema: scripts/encode_textproto.sh IN.textproto OUT.pb
# Needs protoc (Debian package protobuf-compiler).
set -eu
if [ "$#" -ne 2 ]; then
  echo "usage: $0 IN.textproto OUT.pb" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
tmp="$2.tmp.$$"
trap 'rm -f "$tmp"' EXIT
protoc --encode=perfetto.protos.Trace -I "$root/protos" \
  "$root/protos/weft_trace.proto" <"$1" >"$tmp"
mv "$tmp" "$2"
