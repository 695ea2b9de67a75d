#!/bin/sh
# fetch-bullseye.sh: download Debian bullseye's libc6 and libc6-dbg (glibc
# 2.31) and unpack them for the glibc 2.31 -> 2.36 ABI test and benchmark.
#
# The mirror is the one this machine's apt already uses: the first deb URI
# in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list (override
# with ABIFLOOR_MIRROR). Only the suite is switched to bullseye, through a
# temporary sources file and a private lists directory; the system's apt
# state is not touched. Signatures are checked with the keys apt already
# trusts (debian-archive-keyring ships the bullseye keys).
#
# Output directory: $ABIFLOOR_BULLSEYE, else $HOME/.cache/abifloor/bullseye.
# Then: ABIFLOOR_BULLSEYE=<dir> go test ./abidiff -run Glibc
set -eu

out=${ABIFLOOR_BULLSEYE:-$HOME/.cache/abifloor/bullseye}
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
	echo "fetch-bullseye: no deb mirror found in the apt configuration; set ABIFLOOR_MIRROR" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/archives/partial"
: >"$tmp/status"
chmod 755 "$tmp"
echo "deb $mirror bullseye main" >"$tmp/sources.list"

apt_opts="-o Dir::Etc::sourcelist=$tmp/sources.list -o Dir::Etc::sourceparts=- \
	-o Dir::State::Lists=$tmp/lists -o Dir::Cache::archives=$tmp/archives \
	-o Dir::State::status=$tmp/status \
	-o APT::Get::List-Cleanup=0 -o Acquire::Check-Valid-Until=false"
# shellcheck disable=SC2086
apt-get $apt_opts update >&2
mkdir -p "$out"
cd "$tmp"
# An empty dpkg status makes the bullseye versions the candidates, not the
# newer installed ones.
# shellcheck disable=SC2086
apt-get $apt_opts download libc6 libc6-dbg >&2
for deb in "$tmp"/*.deb; do
	dpkg-deb -x "$deb" "$out"
done
echo "$out"
