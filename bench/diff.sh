#!/bin/sh
# diff.sh: abidiff and abifloor diff side by side on glibc 2.31 (Debian
# bullseye, fetched by .ci/fetch-bullseye.sh) -> this machine's glibc, with
# DWARF on both sides; then on libstdc++ from GCC 11 -> 12 (Debian bookworm's
# libstdc++6-11-dbg and -12-dbg, fetched by .ci/fetch-libstdcxx.sh; skipped
# when absent); then abifloor abi headers on a generated header of several
# hundred types and on a set of real Linux UAPI headers.
# Prints mean wall time, the ratio, and peak RSS of each.
#
# usage: ABIFLOOR_BULLSEYE=DIR ABIFLOOR_LIBSTDCXX=DIR2 bench/diff.sh   (DIR
# defaults to $HOME/.cache/abifloor/bullseye, DIR2 to
# $HOME/.cache/abifloor/libstdcxx)
set -euf # -f: the type globs below are for abifloor, not the shell
cd "$(dirname "$0")/.."
B=${ABIFLOOR_BULLSEYE:-$HOME/.cache/abifloor/bullseye}
old=$B/lib/x86_64-linux-gnu/libc.so.6
new=/lib/x86_64-linux-gnu/libc.so.6
[ -e "$old" ] || { echo "no $old: run .ci/fetch-bullseye.sh" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor

# usage COMMAND...: peak RSS in KiB and CPU seconds (user+sys) of one run.
# CPU time is what to compare on a busy machine, where wall time is noise.
usage() {
	/usr/bin/time -f '%M %U %S' -o "$tmp/usage" "$@" >/dev/null 2>&1 || true
	tail -1 "$tmp/usage" | awk '{printf "%d %.3f\n", $1, $2 + $3}'
}

# mean_time NAME COMMAND: mean wall seconds over several runs.
mean_time() {
	name=$1
	shift
	if command -v hyperfine >/dev/null; then
		hyperfine -N -i --warmup 1 --runs 5 --export-csv "$tmp/$name.csv" "$*" >&2
		awk -F, 'NR == 2 {print $2}' "$tmp/$name.csv"
	else
		start=$(date +%s.%N)
		for _ in 1 2 3 4 5; do "$@" >/dev/null 2>&1 || true; done
		echo "$start $(date +%s.%N)" | awk '{printf "%.4f\n", ($2 - $1) / 5}'
	fi
}

abidiff_cmd="abidiff --d1 $B/usr/lib/debug --d2 /usr/lib/debug $old $new"
ours_cmd="$tmp/abifloor diff --debug-dir1 $B/usr/lib/debug $old $new"
ta=$(mean_time abidiff $abidiff_cmd)
to=$(mean_time abifloor $ours_cmd)
set -- $(usage $abidiff_cmd)
ra=$1 ca=$2
set -- $(usage $ours_cmd)
ro=$1 co=$2
echo
echo "glibc 2.31 -> $(basename "$(readlink -f "$new")") with DWARF (load average: $(cut -d' ' -f1 /proc/loadavg))"
printf '  %-10s %8.3f s wall  %8.3f s CPU  %8d KiB peak RSS\n' abidiff "$ta" "$ca" "$ra" abifloor "$to" "$co" "$ro"
echo "$ta $to $ca $co $ra $ro" | awk '{printf "  abifloor: %.1fx faster (wall), %.1fx less CPU, RSS %.2fx of abidiff\n", $1 / $2, $3 / $4, $6 / $5}'

# compare TITLE ABIDIFF_COMMAND ABIFLOOR_COMMAND: time, CPU and RSS of both.
compare() {
	title=$1 abidiff_cmd=$2 ours_cmd=$3
	ta=$(mean_time abidiff $abidiff_cmd)
	to=$(mean_time abifloor $ours_cmd)
	set -- $(usage $abidiff_cmd)
	ra=$1 ca=$2
	set -- $(usage $ours_cmd)
	ro=$1 co=$2
	echo
	echo "$title (load average: $(cut -d' ' -f1 /proc/loadavg))"
	printf '  %-10s %8.3f s wall  %8.3f s CPU  %8d KiB peak RSS\n' abidiff "$ta" "$ca" "$ra" abifloor "$to" "$co" "$ro"
	echo "$ta $to $ca $co $ra $ro" | awk '{printf "  abifloor: %.1fx faster (wall), %.1fx less CPU, RSS %.2fx of abidiff\n", $1 / $2, $3 / $4, $6 / $5}'
}

L=${ABIFLOOR_LIBSTDCXX:-$HOME/.cache/abifloor/libstdcxx}/usr/lib/x86_64-linux-gnu/debug
if [ -e "$L/libstdc++.so.6.0.29" ] && [ -e "$L/libstdc++.so.6.0.30" ]; then
	compare "libstdc++ 6.0.29 (GCC 11) -> 6.0.30 (GCC 12), DWARF inside" \
		"abidiff $L/libstdc++.so.6.0.29 $L/libstdc++.so.6.0.30" \
		"$tmp/abifloor diff $L/libstdc++.so.6.0.29 $L/libstdc++.so.6.0.30"
else
	echo
	echo "libstdc++ 11 -> 12: skipped, no $L/libstdc++.so.6.0.29 (run .ci/fetch-libstdcxx.sh)"
fi

# A generated header: 400 structs, 100 enums, 100 typedefs.
gen=$tmp/gen.h
{
	echo "struct gen_0 { int a; };"
	i=1
	while [ $i -le 400 ]; do
		echo "struct gen_$i { int a; long b; struct gen_$((i - 1)) *prev; char name[16]; unsigned f : 3, g : 5; union { int i; float x; } u; };"
		i=$((i + 1))
	done
	i=1
	while [ $i -le 100 ]; do
		echo "enum gen_e$i { GEN_A$i, GEN_B$i = $i }; typedef struct gen_$i gen_t$i;"
		i=$((i + 1))
	done
	echo "#define GEN_IOCTL 0xc0104611UL"
} >"$gen"
# Patterns without spaces: hyperfine -N splits the command on whitespace.
hdr="$tmp/abifloor abi headers -I $tmp --header gen.h --type gen_* --const GEN_IOCTL"
$hdr >/dev/null
th=$(mean_time headers $hdr)
echo
printf '  abi headers, 601 types generated: %.3f s\n' "$th"
uapi="$tmp/abifloor abi headers --header linux/input.h --header linux/usbdevice_fs.h --header linux/if_tun.h --header linux/perf_event.h --header linux/bpf.h --type * --format json"
n=$($uapi | grep -c '^    "[^"]*": {$' || true)
tu=$(mean_time uapi $uapi)
printf '  abi headers, Linux UAPI (input, usbdevice_fs, if_tun, perf_event, bpf; %s named types): %.3f s\n' "$n" "$tu"
