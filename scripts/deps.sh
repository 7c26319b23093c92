#!/usr/bin/env bash
# Installs the Debian packages weft's build and tests need, if missing.
# Idempotent; needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(build-essential cmake pkg-config libsqlite3-dev zlib1g-dev
          libarchive-dev libdeflate-dev libedit-dev libmicrohttpd-dev
          libpcre2-dev libiberty-dev
          protobuf-compiler clang libclang-rt-14-dev python3 python3-protobuf
          python3-pandas unzip valgrind chromium firefox-esr nodejs npm)
missing=()
for p in "${packages[@]}"; do
  # npm ships inside some nodejs builds (NodeSource's, which conflict with
  # Debian's npm package): a working npm command is enough.
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
