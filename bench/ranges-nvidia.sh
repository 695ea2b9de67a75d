#!/bin/sh
# ranges-nvidia.sh: abifloor ranges build --surface (gVisor's nvproxy
# surface) over every tag of NVIDIA's open-gpu-kernel-modules from 535 on,
# with an empty cache (cold) and again with it full (warm), one new tag
# added cold, and the peer's way on the same repository: gVisor's
# tools/nvidia_driver_differ clones each version of a pair and runs its
# clang AST tool on two translation units per version (two clones and four
# clang runs per pair of consecutive tags). The peer is timed on PAIRS
# pairs and scaled to every pair; its clones are local (file://), where
# the differ's come over the network, so the estimate is low.
#
# usage: bench/ranges-nvidia.sh NVIDIA_REPO GVISOR_REPO|SURFACE.json
#   NVIDIA_REPO  open-gpu-kernel-modules (a bare clone is fine)
#   GVISOR_REPO  gVisor's repository: the surface is derived from its head
#                (TestNvproxySurface); or a surface file made that way
#   BASE=FILE    another abifloor binary (an older build) timed cold the
#                same way, alternating with this one: before and after
#   RUNS=N       cold builds per binary (default 1)
#   PAIRS=N      pairs timed the peer's way (default 1)
set -eu
cd "$(dirname "$0")/.."
nv=$1 gv=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor
if [ -d "$gv" ]; then
	surf=$tmp/surface.json
	ABIFLOOR_GVISOR_REPO=$gv ABIFLOOR_NVPROXY_SURFACE=$surf go test ./ranges -run '^TestNvproxySurface$' -count=1 >/dev/null
else
	surf=$gv
fi
tags='^(53[5-9]|5[4-9][0-9]|[6-9][0-9][0-9])\.'
ntags=$(git -C "$nv" tag -l | grep -cE "$tags")
last=$(git -C "$nv" tag -l | grep -E "$tags" | sort -V | tail -1)

# timed NAME COMMAND...: NAME.time gets "wall cpu" seconds (cpu = user +
# sys of it and its children: what to compare on a busy machine).
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$tmp/$name.t" "$@"
	tail -1 "$tmp/$name.t" | awk '{printf "%.2f %.2f\n", $1, $2 + $3}' >"$tmp/$name.time"
}
wall() { cut -d' ' -f1 "$tmp/$1.time"; }
cpu() { cut -d' ' -f2 "$tmp/$1.time"; }
load() { cut -d' ' -f1 /proc/loadavg; }
build() { # NAME BINARY CACHE: a build of every tag
	ABIFLOOR_CACHE=$3 timed "$1" "$2" ranges build --git "$nv" --tags "$tags" --surface "$surf" -o "$tmp/$1.json"
}

echo "load average before: $(load)"
runs=${RUNS:-1}
r=1
while [ "$r" -le "$runs" ]; do
	rm -rf "$tmp/cache"
	build "cold$r" "$tmp/abifloor" "$tmp/cache"
	if [ -n "${BASE:-}" ]; then
		rm -rf "$tmp/basecache"
		build "base$r" "$BASE" "$tmp/basecache"
		cmp -s "$tmp/cold$r.json" "$tmp/base$r.json" || { echo "the table differs from $BASE's" >&2; exit 1; }
	fi
	r=$((r + 1))
done
build warm "$tmp/abifloor" "$tmp/cache"
cmp -s "$tmp/cold1.json" "$tmp/warm.json" || { echo "warm table differs from cold" >&2; exit 1; }
# One new tag on an empty cache: the table without it, then add it.
jq --arg v "$last" '.ranges |= map(.versions -= [$v] | select(.versions | length > 0) | .last = .versions[-1])' "$tmp/cold1.json" >"$tmp/minus.json"
ABIFLOOR_CACHE=$tmp/newcache timed new "$tmp/abifloor" ranges add --git "$nv" "$tmp/minus.json" "$last"
loadmid=$(load)

# The peer, per pair: for each version a shallow clone, then its two
# translation units (the surface's headers, the constants evaluated)
# parsed by clang, as the differ's AST tool does.
jq -r '.constants[]' "$surf" >"$tmp/consts"
jq -r '.include[]' "$surf" >"$tmp/incs"
jq -r '.headers[]' "$surf" >"$tmp/hdrs"
peercc=clang
command -v clang >/dev/null || peercc=cc
cat >"$tmp/peer.sh" <<'PEER'
set -eu
nv=$1 a=$2 b=$3 tmp=$4 cc=$5
d=$(mktemp -d "$tmp/peer.XXXX")
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
	for k in 1 2; do $cc -w -fsyntax-only $args "$d/$t.c" || true; done
done
rm -rf "$d"
PEER
pairs=${PAIRS:-1}
git -C "$nv" tag -l | grep -E "$tags" | sort -V | tail -$((pairs + 1)) >"$tmp/pairtags"
cat >"$tmp/peers.sh" <<EOF2
prev=""
while read -r t; do
	[ -n "\$prev" ] && sh "$tmp/peer.sh" "$nv" "\$prev" "\$t" "$tmp" "$peercc"
	prev=\$t
done <"$tmp/pairtags"
EOF2
timed peer sh "$tmp/peers.sh"
loadend=$(load)

scale() { echo "$1 $2 $3" | awk '{printf "%.1f", $1 * $3 / $2}'; }
median() { for f in "$@"; do cat "$f"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { # NAME-PREFIX FIELD: median over the runs
	k=1
	: >"$tmp/col"
	while [ "$k" -le "$runs" ]; do cut -d' ' -f"$2" "$tmp/$1$k.time" >>"$tmp/col"; k=$((k + 1)); done
	median "$tmp/col"
}
cw=$(col cold 1) cc=$(col cold 2)
ranges=$(jq '.ranges | length' "$tmp/cold1.json")
echo "nvproxy surface ($(jq '.types | length' "$surf") types, $(jq '.opaque | length' "$surf") opaque, $(jq '.constants | length' "$surf") constants) over $ntags tags, $ranges ranges ($(nproc) CPUs; load average $(load) now, $loadmid after the builds, $loadend after the peer)"
printf '  %-40s %8s %8s\n' "" "wall s" "CPU s"
printf '  %-40s %8s %8s  (goal <= 30 s; median of %s)\n' "cold build" "$cw" "$cc" "$runs"
if [ -n "${BASE:-}" ]; then
	bw=$(col base 1) bc=$(col base 2)
	printf '  %-40s %8s %8s  (this build: %s x its wall, %s x its CPU)\n' "cold build, $(basename "$BASE")" "$bw" "$bc" \
		"$(echo "$cw $bw" | awk '{printf "%.2f", $1 / $2}')" "$(echo "$cc $bc" | awk '{printf "%.2f", $1 / $2}')"
fi
printf '  %-40s %8s %8s  (goal <= 2 s)\n' "warm rebuild" "$(wall warm)" "$(cpu warm)"
printf '  %-40s %8s %8s  (goal <= 3 s)\n' "one new tag ($last), cold" "$(wall new)" "$(cpu new)"
printf '  %-40s %8s %8s  (%s)\n' "peer: $pairs pair(s) measured" "$(wall peer)" "$(cpu peer)" "$peercc -fsyntax-only, local clones"
pw=$(scale "$(wall peer)" "$pairs" $((ntags - 1)))
pc=$(scale "$(cpu peer)" "$pairs" $((ntags - 1)))
printf '  %-40s %8s %8s  (wall: %s x the cold build)\n' "peer: all $((ntags - 1)) pairs (extrapolated)" "$pw" "$pc" \
	"$(echo "$pw $cw" | awk '{printf "%.0f", $1 / $2}')"
