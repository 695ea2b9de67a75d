#!/usr/bin/env bash
# The cost of check --target's loader checks, side by side with a base
# build of abifloor (the one before them: issue 27 allows 1.5x).
#
#   BASE=/path/to/abifloor-base bench/check-target.sh [TARGET [TREE]]
#        (default debian-12 /usr/bin; BASE default /tmp/abifloor-main,
#        built from the main branch: CGO_ENABLED=0 go build -o /tmp/abifloor-main ./cmd/abifloor)
#
# Prints hyperfine's table, the ratio this tree / base of the medians, the
# CPU time of each (GNU time) and the load average. Needs hyperfine, jq and
# /usr/bin/time.
set -euo pipefail
target=${1:-debian-12}
tree=${2:-/usr/bin}
base=${BASE:-/tmp/abifloor-main}
cd "$(dirname "$0")/.."
for tool in hyperfine jq /usr/bin/time "$base"; do
	command -v "$tool" >/dev/null || { echo "bench/check-target.sh: $tool is not installed" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -o "$out/abifloor" ./cmd/abifloor
echo "== check --target $target $tree (load: $(cut -d' ' -f1-3 /proc/loadavg))"
# Exit 1 (violations) is an answer, not a failure: -i.
hyperfine --warmup 1 --runs "${RUNS:-7}" -i -N --export-json "$out/r.json" \
	-n base "$base check --target $target $tree" \
	-n this "$out/abifloor check --target $target $tree"
jq -r '.results as $r | "ratio this/base: \(($r[1].median / $r[0].median * 100 | round) / 100)x (medians \($r[0].median * 1000 | round) ms, \($r[1].median * 1000 | round) ms)"' "$out/r.json"
for b in "$base" "$out/abifloor"; do
	/usr/bin/time -f "$(basename "$b"): %U s user %S s sys %M KB" "$b" check --target "$target" "$tree" >/dev/null 2>"$out/t" || true
	tail -1 "$out/t"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
