#!/bin/sh
# bench/bind.sh [DIR...]: audit every ELF file under the directories
# (default /usr/bin /usr/lib) with `abifloor bind`, full dependency
# resolution, and time `ldd -r` over the same files, side by side.
# Prints both times and the ratio. Needs hyperfine and python3.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- /usr/bin /usr/lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor
# The ELF files the audit looked at are the ones ldd gets.
"$tmp/abifloor" bind --format json "$@" >"$tmp/bind.json" || true
python3 - "$tmp/bind.json" >"$tmp/files" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    if not f.get("error"):
        print(f["path"])
PY
n=$(wc -l <"$tmp/files")
echo "$n ELF files under $*"
hyperfine --style basic --warmup 1 --runs 3 --export-json "$tmp/a.json" \
  "$tmp/abifloor bind --format json $* >/dev/null || true"
hyperfine --style basic --runs 1 --export-json "$tmp/b.json" \
  "xargs -d '\n' -n 64 ldd -r <$tmp/files >/dev/null 2>&1 || true"
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
b = json.load(open(sys.argv[2]))["results"][0]
print(f"abifloor bind: {a['mean']:.2f} s wall, {a['user']+a['system']:.2f} s CPU")
print(f"ldd -r:        {b['mean']:.2f} s wall, {b['user']+b['system']:.2f} s CPU")
print(f"ratio: {b['mean']/a['mean']:.1f}x wall, {(b['user']+b['system'])/(a['user']+a['system']):.1f}x CPU")
PY
