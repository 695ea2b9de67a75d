#!/bin/sh
# fetch-runtime.sh SUITE...: download the C and C++ runtime a Debian SUITE
# ships for amd64 (libc6, libstdc++6, libgcc-s1) and unpack each suite into
# $ABIFLOOR_RUNTIME/SUITE (default $HOME/.cache/abifloor/runtime), with the
# package versions in SUITE/versions. targets' TestDistroRowsShip compares
# each Debian row of the target table with what these libraries define.
#
# The mirror and the suite switch are apt-suite.sh's: this machine's own
# mirror, only the suite switched, signatures checked.
set -eu

[ $# -ge 1 ] || { echo "usage: fetch-runtime.sh SUITE..." >&2; exit 2; }
root=${ABIFLOOR_RUNTIME:-$HOME/.cache/abifloor/runtime}
for suite in "$@"; do
	(
		. "$(dirname "$0")/apt-suite.sh"
		apt_suite "$suite" amd64
		cd "$tmp"
		out=$root/$suite
		rm -rf "${out:?}"
		mkdir -p "$out"
		for pkg in libc6 libstdc++6 libgcc-s1; do
			# shellcheck disable=SC2086
			apt-get $apt_opts download "$pkg:amd64" >&2
			deb=$(ls "$tmp"/*_amd64.deb | head -n 1)
			dpkg-deb -x "$deb" "$out"
			printf '%s %s\n' "$pkg" "$(dpkg-deb -f "$deb" Version)" >>"$out/versions"
			rm -f "$deb"
		done
	)
done
echo "$root"
