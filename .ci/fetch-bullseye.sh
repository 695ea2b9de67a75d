#!/bin/sh
# fetch-bullseye.sh: download Debian bullseye's libc6 and libc6-dbg (glibc
# 2.31) and unpack them for the glibc 2.31 -> 2.36 ABI test and benchmark.
#
# The mirror and the suite switch are apt-suite.sh's.
#
# Output directory: $ABIFLOOR_BULLSEYE, else $HOME/.cache/abifloor/bullseye.
# Then: ABIFLOOR_BULLSEYE=<dir> go test ./abidiff -run Glibc
set -eu

out=${ABIFLOOR_BULLSEYE:-$HOME/.cache/abifloor/bullseye}
. "$(dirname "$0")/apt-suite.sh"
apt_suite bullseye
mkdir -p "$out"
cd "$tmp"
# shellcheck disable=SC2086
apt-get $apt_opts download libc6 libc6-dbg >&2
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$out"
done
echo "$out"
