#!/bin/sh
# ranges.sh: abifloor ranges build on a git repository of 200 tags of a
# header tree of 20 structs (every release touches the header, as NVIDIA's
# do, so no two tags share a tree; the layout changes 8 times, once
# reverted). Times a cold build (empty cache), a warm rebuild (every version
# from the cache), one new tag added to a warm cache, and the peer's cost for
# the same table: one clone and one compile per version, as a pair-wise
# differ (gVisor's tools/nvidia_driver_differ) does, run two at a time.
#
# usage: bench/ranges.sh [TAGS]   (default 200)
set -eu
cd "$(dirname "$0")/.."
n=${1:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null

# header VERSION EXTRA: 20 structs; EXTRA is a member added to struct s7
# while a change is in force.
header() {
	echo "/* release $1 */"
	echo "typedef unsigned int NvU32; typedef unsigned long long NvU64;"
	j=0
	while [ $j -lt 20 ]; do
		prev=""
		[ $j -gt 0 ] && prev="struct s$((j - 1)) *prev;"
		extra=""
		[ $j -eq 7 ] && extra=$2
		echo "typedef struct s$j { NvU32 hRoot; NvU32 hObject; NvU64 pParams; NvU32 size; NvU32 status; $prev char name[16]; union { NvU32 u; float f; } v; $extra } S${j}_PARAMETERS;"
		j=$((j + 1))
	done
}

repo=$tmp/repo
mkdir -p "$repo/inc"
git -C "$repo" init -q -b main
i=0
while [ $i -lt "$n" ]; do
	v="5$((35 + i / 20)).$((i % 20)).0$((i % 7))"
	case $((i / 25)) in
	1 | 3) extra="NvU32 added$((i / 25));" ;;
	5) extra="NvU32 added1;" ;; # the change of stretch 1, again: a revert
	*) extra="" ;;
	esac
	header "$v" "$extra" >"$repo/inc/nv.h"
	git -C "$repo" add -A
	git -C "$repo" commit -qm "$v"
	git -C "$repo" tag "$v"
	i=$((i + 1))
done

# timed NAME COMMAND...: run COMMAND; NAME.time gets "wall cpu" seconds
# (cpu = user + sys of it and its children: what to compare on a busy
# machine, where wall time is noise).
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$tmp/$name.t" "$@"
	tail -1 "$tmp/$name.t" | awk '{printf "%.2f %.2f\n", $1, $2 + $3}' >"$tmp/$name.time"
}
wall() { cut -d' ' -f1 "$tmp/$1.time"; }
cpu() { cut -d' ' -f2 "$tmp/$1.time"; }

export ABIFLOOR_CACHE=$tmp/cache
build() {
	name=$1 tags=$2
	timed "$name" "$tmp/abifloor" ranges build --git "$repo" --tags "$tags" -I inc --header nv.h --type 'S*_PARAMETERS' -o "$tmp/$name.txt"
}
build cold '^5'
build warm '^5'

cmp -s "$tmp/cold.txt" "$tmp/warm.txt" || { echo "warm table differs from cold" >&2; exit 1; }
ranges=$(($(wc -l <"$tmp/cold.txt") - 1))

# One new release on top of a warm cache: one compile.
header "600.1.01" "" >"$repo/inc/nv.h"
git -C "$repo" commit -qam 600.1.01
git -C "$repo" tag 600.1.01
build incr '^[56]'


# The peer: a shallow clone of each tag and one compile of its header.
cat >"$tmp/peer.sh" <<PEER
git -C "$repo" tag -l '5*' | xargs -P 2 -I TAG sh -c '
	d=\$(mktemp -d "$tmp/peer.XXXX")
	git clone -q --depth 1 --branch TAG "file://$repo" "\$d/src" 2>/dev/null
	printf "#include \\"nv.h\\"\\n" >"\$d/tu.c"
	cc -g -O0 -fno-eliminate-unused-debug-types -c -I "\$d/src/inc" -o "\$d/tu.o" "\$d/tu.c"
	rm -rf "\$d"'
PEER
timed peer sh "$tmp/peer.sh"

lookup=$(go test ./ranges -run XXX -bench BenchmarkLookup -benchtime 1s 2>/dev/null | awk '/BenchmarkLookup/ {print $3}')
echo "abifloor ranges on $n tags of 20 structs, $ranges ranges ($(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg))"
printf '  %-22s %8s %8s\n' "" "wall s" "CPU s"
printf '  %-22s %8s %8s\n' "cold build" "$(wall cold)" "$(cpu cold)"
printf '  %-22s %8s %8s  (%s ms wall per version)\n' "warm rebuild" "$(wall warm)" "$(cpu warm)" "$(echo "$(wall warm) $n" | awk '{printf "%.1f", 1000 * $1 / $2}')"
printf '  %-22s %8s %8s\n' "one new tag, warm" "$(wall incr)" "$(cpu incr)"
printf '  %-22s %8s %8s  (CPU: %s x the cold build, %s x the warm rebuild)\n' "peer: clone+compile" "$(wall peer)" "$(cpu peer)" \
	"$(echo "$(cpu peer) $(cpu cold)" | awk '{printf "%.1f", $1 / $2}')" "$(echo "$(cpu peer) $(cpu warm)" | awk '{printf "%.0f", $1 / $2}')"
printf '  %-22s %8s ns\n' "lookup" "$lookup"

# nvproxy's whole surface on NVIDIA's repository (issue 20):
# bench/ranges-nvidia.sh.
