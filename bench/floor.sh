#!/usr/bin/env bash
# Floor scan speed and memory, side by side with what users run today.
#
#   bench/floor.sh [TREE]      (default /usr)
#
# 1. abifloor scan TREE  vs  find TREE -type f -print0 | xargs -0 objdump -p
# 2. abifloor scan FILE... vs objdump -p FILE..., given exactly the ELF files
# 3. peak RSS of abifloor over TREE, and over a tree holding a >100 MB library
#
# Needs hyperfine, objdump (binutils), jq and GNU time (/usr/bin/time).
set -euo pipefail
tree=${1:-/usr}
cd "$(dirname "$0")/.."
for tool in hyperfine objdump jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench/floor.sh: $tool is not installed" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -o "$out/abifloor" ./cmd/abifloor
af="$out/abifloor"

echo "== 1. whole tree: $tree"
hyperfine --warmup 1 --runs 5 -i -N --export-json "$out/tree.json" \
	-n objdump "bash -c 'find $tree -type f -print0 | xargs -0 objdump -p >/dev/null 2>&1'" \
	-n abifloor "$af scan $tree" \
	-n "abifloor --no-artefacts" "$af scan --no-artefacts $tree"
jq -r '.results as $r | "ratio objdump/abifloor: \(($r[0].median / $r[1].median * 10 | round) / 10)x (artefacts in the tree opened), \(($r[0].median / $r[2].median * 10 | round) / 10)x (--no-artefacts)"' "$out/tree.json"

echo "== 2. the ELF files only (no walk)"
# Files read without error, artefact members (ART!/member) left out.
"$af" scan --no-artefacts --format json "$tree" | jq -j '.files[] | select(.error == null) | .path + "\u0000"' >"$out/elf.list"
echo "$(tr -cd '\0' <"$out/elf.list" | wc -c) ELF files"
# Both behind the same bash and xargs; xargs makes one command line of
# the list (it is far below ARG_MAX), so each tool runs once.
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine --warmup 2 --runs 20 -i -N --export-json "$out/files.json" \
	-n objdump "bash -c 'xargs -0 objdump -p <$out/elf.list >/dev/null 2>&1'" \
	-n abifloor "bash -c 'xargs -0 $af scan <$out/elf.list >/dev/null'"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The goal (issue 32) is abifloor/objdump <= 0.5 in wall time on a quiet
# machine; CPU time (user+sys) is the figure to trust on a busy one.
jq -r '.results as $r |
	"ratio objdump/abifloor: \(($r[0].median / $r[1].median * 100 | round) / 100)x (median wall time \($r[0].median * 1000 | round) ms / \($r[1].median * 1000 | round) ms)",
	"abifloor/objdump wall time: \(($r[1].median / $r[0].median * 100 | round) / 100) (goal <= 0.5)",
	"abifloor/objdump CPU time (user+sys): \((($r[1].user + $r[1].system) / ($r[0].user + $r[0].system) * 100 | round) / 100)"' "$out/files.json"

echo "== 3. peak RSS"
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
echo "abifloor scan $tree: $(rss "$af" scan "$tree") KiB"
echo "abifloor scan --why $tree: $(rss "$af" scan --why "$tree") KiB"
big=$(find "$tree" -type f -name '*.so*' -size +100M 2>/dev/null | head -1 || true)
mkdir -p "$out/big"
if [ -z "$big" ]; then
	# No large library here: make one by padding a real one.
	cp "$(find /usr/lib -name 'libc.so.6' | head -1)" "$out/big/libbig.so"
	truncate -s 150M "$out/big/libbig.so"
else
	cp "$big" "$out/big/"
fi
cp "$(command -v objdump)" "$out/big/"
echo "tree with $(du -sh "$out/big" | cut -f1) incl. a large library: scan $(rss "$af" scan "$out/big") KiB, scan --why $(rss "$af" scan --why "$out/big") KiB"
rm "$out"/big/*.so*
echo "same tree without it: scan $(rss "$af" scan "$out/big") KiB, scan --why $(rss "$af" scan --why "$out/big") KiB"
