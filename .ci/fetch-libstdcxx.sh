#!/bin/sh
# fetch-libstdcxx.sh: download Debian bookworm's libstdc++6-11-dbg and
# libstdc++6-12-dbg (libstdc++.so.6.0.29 and .30 of GCC 11 and 12, DWARF
# inside) and unpack them for the libstdc++ 11 -> 12 ABI test and benchmark.
#
# The mirror and the suite switch are apt-suite.sh's.
#
# Output directory: $ABIFLOOR_LIBSTDCXX, else $HOME/.cache/abifloor/libstdcxx.
# Then: go test ./abidiff -run Libstdcxx
set -eu

out=${ABIFLOOR_LIBSTDCXX:-$HOME/.cache/abifloor/libstdcxx}
. "$(dirname "$0")/apt-suite.sh"
apt_suite bookworm
mkdir -p "$out"
cd "$tmp"
# shellcheck disable=SC2086
apt-get $apt_opts download libstdc++6-11-dbg libstdc++6-12-dbg >&2
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$out"
done
# The static archives are not needed.
rm -f "$out"/usr/lib/x86_64-linux-gnu/debug/*.a
echo "$out"
