#!/usr/bin/env bash
# A tree with its artefacts (issue 17 item 7), side by side in one run:
#
#   abifloor scan TREE                        opens every archive met (the default)
#   find TREE -type f -print0 | xargs -0 objdump -p    the peer: opens no archive
#   abifloor scan --no-artefacts TREE         opens no archive either
#
#   bench/scan.sh [TREE]      (default /usr; RUNS=N runs each, default 5)
#
# Targets: scan TREE at least 3x faster than objdump, and at most 3x
# scan --no-artefacts. Prints both ratios from the medians and from the
# CPU times (user+system: steadier on a shared machine), and the load
# average before and after. Needs hyperfine, jq, objdump.
set -euo pipefail
tree=${1:-/usr}
cd "$(dirname "$0")/.."
for tool in hyperfine jq objdump; do
	command -v "$tool" >/dev/null || { echo "bench/scan.sh: $tool is not installed" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -o "$out/abifloor" ./cmd/abifloor
af="$out/abifloor"
echo "$tree: $(find "$tree" -xdev -type f 2>/dev/null | wc -l) files, $(find "$tree" -xdev -type f \( -name '*.jar' -o -name '*.whl' -o -name '*.zip' -o -name '*.tar*' -o -name '*.tgz' -o -name '*.deb' \) 2>/dev/null | wc -l) archives by name"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
# A tree's malformed archives (Go's test data) are warnings; objdump's
# exit status (it complains of every non-ELF file) is ignored.
hyperfine --style basic --warmup 1 --runs "${RUNS:-5}" -i --export-json "$out/tree.json" \
	-n "scan" "$af scan -q $tree" \
	-n "objdump" "find $tree -type f -print0 | xargs -0 objdump -p >/dev/null 2>&1" \
	-n "scan --no-artefacts" "$af scan -q --no-artefacts $tree" >/dev/null
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
jq -r '.results[] | "  \(.command): median \(.median*100|round/100) s (min \(.min*100|round/100), max \(.max*100|round/100)), CPU \((.user+.system)*100|round/100) s"' "$out/tree.json"
jq -r '(.results | map({(.command): .}) | add) as $r |
	def ratio(a; b): (a*100|round)/100;
	"objdump / scan:              wall \(ratio($r.objdump.median / $r.scan.median; 0))x, CPU \(ratio(($r.objdump.user+$r.objdump.system) / ($r.scan.user+$r.scan.system); 0))x  (target >= 3x) \(if $r.objdump.median / $r.scan.median >= 3 then "met" else "NOT met" end)",
	"scan / scan --no-artefacts:  wall \(ratio($r.scan.median / $r["scan --no-artefacts"].median; 0))x, CPU \(ratio(($r.scan.user+$r.scan.system) / ($r["scan --no-artefacts"].user+$r["scan --no-artefacts"].system); 0))x  (target <= 3x) \(if $r.scan.median / $r["scan --no-artefacts"].median <= 3 then "met" else "NOT met" end)"' "$out/tree.json"
