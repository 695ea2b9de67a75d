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
go build -o "$tmp/abifloor" ./cmd/abifloor
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

# nvproxy's whole surface on NVIDIA's repository (issue 20), when given:
#   ABIFLOOR_NVIDIA_REPO=DIR     open-gpu-kernel-modules (a bare clone is fine)
#   ABIFLOOR_NVPROXY_SURFACE=F   the surface file, as TestNvproxyAgainstGVisor
#                                writes it (see docs/ranges.md)
#   PAIRS=N                      pairs the peer way is timed on (default 3),
#                                scaled to every consecutive pair of tags
# Times a cold build of every tag from 535 on, a warm rebuild, one new tag
# added cold, and the per-pair clone-and-compile way (gVisor's differ: two
# clones and four compiles of the surface's headers per pair of versions).
nv=${ABIFLOOR_NVIDIA_REPO:-}
surf=${ABIFLOOR_NVPROXY_SURFACE:-}
[ -n "$nv" ] && [ -n "$surf" ] || exit 0
tags='^(53[5-9]|5[4-9][0-9]|[6-9][0-9][0-9])\.'
last=$(git -C "$nv" tag -l | grep -E "$tags" | sort -V | tail -1)
export ABIFLOOR_CACHE=$tmp/nvcache
timed nvcold "$tmp/abifloor" ranges build --git "$nv" --tags "$tags" --surface "$surf" -o "$tmp/nv.json"
timed nvwarm "$tmp/abifloor" ranges build --git "$nv" --tags "$tags" --surface "$surf" -o "$tmp/nv2.json"
cmp -s "$tmp/nv.json" "$tmp/nv2.json" || { echo "warm nvproxy table differs from cold" >&2; exit 1; }
# One new tag: the table without the last tag, then add it with an empty
# cache (one export and one compile).
jq --arg v "$last" '.ranges |= map(.versions -= [$v] | select(.versions | length > 0) | .last = .versions[-1])' "$tmp/nv.json" >"$tmp/nvminus.json"
ABIFLOOR_CACHE=$tmp/nvcache-new timed nvnew "$tmp/abifloor" ranges add --git "$nv" "$tmp/nvminus.json" "$last"
ntags=$(git -C "$nv" tag -l | grep -cE "$tags")

# The peer, per pair: two shallow clones, then the surface's headers
# compiled four times (the differ runs its clang AST tool four times).
jq -r '.constants[]' "$surf" >"$tmp/consts"
jq -r '.include[]' "$surf" >"$tmp/incs"
jq -r '.headers[]' "$surf" >"$tmp/hdrs"
cat >"$tmp/nvpeer.sh" <<'PEER'
set -eu
nv=$1 a=$2 b=$3 tmp=$4
d=$(mktemp -d "$tmp/nvpeer.XXXX")
for t in "$a" "$b"; do
	git clone -q --depth 1 --branch "$t" "file://$nv" "$d/$t" 2>/dev/null
	: >"$d/$t.c"
	args=""
	while read -r inc; do
		args="$args -I $d/$t/$inc"
		while read -r h; do
			for f in "$d/$t/$inc"/$h; do [ -f "$f" ] && echo "#include \"${f#"$d/$t/$inc/"}\"" >>"$d/$t.c"; done
		done <"$tmp/hdrs"
	done <"$tmp/incs"
	while read -r c; do printf '#ifdef %s\nconst unsigned long long GVISOR_%s = %s;\n#endif\n' "$c" "$c" "$c" >>"$d/$t.c"; done <"$tmp/consts"
	for k in 1 2; do cc -w -g -O0 -fno-eliminate-unused-debug-types -c $args -o "$d/$t.o" "$d/$t.c" || true; done
done
rm -rf "$d"
PEER
pairs=${PAIRS:-3}
git -C "$nv" tag -l | grep -E "$tags" | sort -V | tail -$((pairs + 1)) >"$tmp/pairtags"
cat >"$tmp/nvpeers.sh" <<EOF2
prev=""
while read -r t; do
	[ -n "\$prev" ] && sh "$tmp/nvpeer.sh" "$nv" "\$prev" "\$t" "$tmp"
	prev=\$t
done <"$tmp/pairtags"
EOF2
timed nvpeer sh "$tmp/nvpeers.sh"
scale() { echo "$1 $2 $3" | awk '{printf "%.1f", $1 * $3 / $2}'; }
echo "nvproxy surface ($(jq '.types | length' "$surf") types, $(jq '.opaque | length' "$surf") opaque, $(jq '.constants | length' "$surf") constants) over $ntags tags of $(basename "$(dirname "$nv")")"
printf '  %-34s %8s %8s\n' "" "wall s" "CPU s"
printf '  %-34s %8s %8s  (goal <= 60 s)\n' "cold build" "$(wall nvcold)" "$(cpu nvcold)"
printf '  %-34s %8s %8s  (goal <= 2 s)\n' "warm rebuild" "$(wall nvwarm)" "$(cpu nvwarm)"
printf '  %-34s %8s %8s  (goal <= 3 s)\n' "one new tag ($last), cold" "$(wall nvnew)" "$(cpu nvnew)"
printf '  %-34s %8s %8s\n' "peer: $pairs pairs clone+compile" "$(wall nvpeer)" "$(cpu nvpeer)"
pw=$(scale "$(wall nvpeer)" "$pairs" $((ntags - 1)))
pc=$(scale "$(cpu nvpeer)" "$pairs" $((ntags - 1)))
printf '  %-34s %8s %8s  (wall: %s x the cold build, %s x the warm rebuild)\n' "peer: all $((ntags - 1)) pairs (scaled)" "$pw" "$pc" \
	"$(echo "$pw $(wall nvcold)" | awk '{printf "%.1f", $1 / $2}')" "$(echo "$pw $(wall nvwarm)" | awk '{printf "%.0f", $1 / $2}')"
