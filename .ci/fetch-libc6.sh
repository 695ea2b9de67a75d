#!/bin/sh
# fetch-libc6.sh SUITE ARCH...: download Debian SUITE's libc6 for each Debian
# architecture (amd64, arm64, i386, s390x) and unpack each into
# $ABIFLOOR_LIBC6/SUITE/ARCH (default $HOME/.cache/abifloor/libc6). The glibc
# database tests compare the embedded data with these real libraries, and
# glibc/gen reads them to regenerate it (bullseye = glibc 2.31, trixie = 2.41).
#
# The mirror and the suite switch are apt-suite.sh's: this machine's own
# mirror, only the suite switched, signatures checked.
set -eu

[ $# -ge 2 ] || { echo "usage: fetch-libc6.sh SUITE ARCH..." >&2; exit 2; }
suite=$1
shift
out=${ABIFLOOR_LIBC6:-$HOME/.cache/abifloor/libc6}/$suite
. "$(dirname "$0")/apt-suite.sh"
apt_suite "$suite" "$(echo "$@" | tr ' ' ',')"
cd "$tmp"
for arch in "$@"; do
	# An empty dpkg status makes SUITE's version the candidate.
	# shellcheck disable=SC2086
	apt-get $apt_opts download "libc6:$arch" >&2
	rm -rf "${out:?}/$arch"
	mkdir -p "$out/$arch"
	dpkg-deb -x "$tmp"/libc6_*_"$arch".deb "$out/$arch"
	rm -f "$tmp"/libc6_*_"$arch".deb
done
echo "$out"
