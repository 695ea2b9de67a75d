#!/bin/sh
# fetch-libc6.sh SUITE ARCH...: download Debian SUITE's libc6 for each Debian
# architecture (amd64, arm64, i386, s390x) and unpack each into
# $ABIFLOOR_LIBC6/SUITE/ARCH (default $HOME/.cache/abifloor/libc6). The glibc
# database tests compare the embedded data with these real libraries, and
# glibc/gen reads them to regenerate it (bullseye = glibc 2.31, trixie = 2.41).
#
# As in fetch-bullseye.sh, the mirror is the first deb URI of this machine's
# apt configuration (override with ABIFLOOR_MIRROR), only the suite is
# switched, through a temporary sources file and private lists, and
# signatures are checked with the keys apt already trusts.
set -eu

[ $# -ge 2 ] || { echo "usage: fetch-libc6.sh SUITE ARCH..." >&2; exit 2; }
suite=$1
shift
out=${ABIFLOOR_LIBC6:-$HOME/.cache/abifloor/libc6}/$suite
mirror=${ABIFLOOR_MIRROR:-}
if [ -z "$mirror" ]; then
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$f")
		[ -n "$mirror" ] && break
	done
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $2 !~ /security/ {print ($2 ~ /^\[/ ? $3 : $2); exit}' /etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
	echo "fetch-libc6: no deb mirror found in the apt configuration; set ABIFLOOR_MIRROR" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
: >"$tmp/status"
chmod 755 "$tmp"
archs=$(echo "$@" | tr ' ' ',')
echo "deb [arch=$archs] $mirror $suite main" >"$tmp/sources.list"

apt_opts="-o Dir::Etc::sourcelist=$tmp/sources.list -o Dir::Etc::sourceparts=- \
	-o Dir::State::Lists=$tmp/lists -o Dir::Cache::archives=$tmp/archives \
	-o Dir::State::status=$tmp/status -o APT::Architectures=$archs \
	-o APT::Get::List-Cleanup=0 -o Acquire::Check-Valid-Until=false"
# shellcheck disable=SC2086
apt-get $apt_opts update >&2
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
