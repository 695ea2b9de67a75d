#!/bin/sh
# fetch-cccorpus.sh: download and unpack the Debian source packages of the
# abifloor cc corpus (ccwrap/corpus_test.go, bench/cc-corpus.sh) with
# apt-get source, from this machine's own apt mirror and suite through a
# private deb-src list (the system's apt state is not touched).
#
# The mirror is apt-suite.sh's (the machine's apt configuration); the suite
# is the machine's own (the first Suites: of its .sources, else
# /etc/os-release). apt-get source needs dpkg-dev.
#
# Output directory: $ABIFLOOR_CCCORPUS_SRC, else
# $HOME/.cache/abifloor/cccorpus; each package is unpacked in a directory
# named after it (zlib/, xz-utils/, ...). A package already there is kept.
# A corpus project may be named instead of its package (pcre2-cmake is
# pcre2; tmux needs libevent and ncurses too).
# Usage: fetch-cccorpus.sh [PACKAGE|PROJECT...]
set -eu

out=${ABIFLOOR_CCCORPUS_SRC:-$HOME/.cache/abifloor/cccorpus}
names=${*:-zlib xz-utils lua5.4 sqlite3 bzip2 lz4 libzstd jq expat pcre2 libpng1.6 fmtlib libevent tmux libsodium brotli cjson lmdb}
pkgs=""
for n in $names; do
	case $n in
	pcre2-cmake) pkgs="$pkgs pcre2" ;;
	tmux) pkgs="$pkgs tmux libevent ncurses" ;;
	*) pkgs="$pkgs $n" ;;
	esac
done
. "$(dirname "$0")/apt-suite.sh"
find_mirror
suite=""
for f in /etc/apt/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	suite=$(awk '/^Suites:/ {print $2; exit}' "$f")
	[ -n "$suite" ] && break
done
if [ -z "$suite" ] && [ -r /etc/os-release ]; then
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
fi
if [ -z "$suite" ]; then
	echo "$0: no suite found in the apt configuration" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/archives/partial" "$out"
: >"$tmp/status"
echo "deb-src $mirror $suite main" >"$tmp/sources.list"
apt_opts="-o Dir::Etc::sourcelist=$tmp/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$tmp/lists -o Dir::Cache::archives=$tmp/archives \
-o Dir::State::status=$tmp/status -o APT::Get::List-Cleanup=0"
# shellcheck disable=SC2086
apt-get -qq $apt_opts update >&2
for p in $pkgs; do
	[ -d "$out/$p" ] && continue
	rm -rf "$tmp/src" && mkdir "$tmp/src"
	# shellcheck disable=SC2086
	(cd "$tmp/src" && apt-get -qq $apt_opts source "$p" >&2)
	d=$(find "$tmp/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	if [ -z "$d" ]; then
		echo "$0: apt-get source $p unpacked nothing" >&2
		exit 1
	fi
	mv "$d" "$out/$p.part" && mv "$out/$p.part" "$out/$p"
done
echo "$out"
