#!/usr/bin/env bash
# The full package corpus of issue 17: every installed package that ships
# an ELF file (in a bin, sbin, lib* or libexec directory), fetched from this
# machine's apt mirror, checked alone against its own claims
# (`abifloor check PKG`): each must exit 0, zsh must exit 1 naming
# hypot@GLIBC_2.35. This is a gated test (TestDebCorpus), not a benchmark;
# it lives here beside the other long runs.
#
#   bench/debcorpus.sh [DIR]     DIR keeps the .deb files for the next run
#                                (default: a temporary directory)
#   MAXSIZE=BYTES                skip packages larger than this (default
#                                50 MB: chromium, the JDK)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in apt-get apt-cache dpkg-query; do
	command -v "$tool" >/dev/null || { echo "bench/debcorpus.sh: $tool is not installed" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=${1:-$tmp/debs}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
for p in $(dpkg-query -W -f '${Package}\n'); do
	while read -r f; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		magic=
		IFS= read -r -N4 magic <"$f" 2>/dev/null || true
		if [ "$magic" = $'\x7fELF' ]; then echo "$p"; break; fi
	done < <(dpkg -L "$p" 2>/dev/null | grep -E '/(s?bin|lib[^/]*|libexec)/')
done >"$tmp/elf"
# The packages issue 17 names, installed or not.
printf '%s\n' tar systemd sudo openssl libc6 kmod iproute2 udev libpython3.11-minimal zsh curl coreutils >>"$tmp/elf"
sort -u "$tmp/elf" | xargs apt-cache show --no-all-versions 2>/dev/null |
	awk -v max="${MAXSIZE:-50000000}" '/^Package:/{p=$2} /^Size:/{if ($2 <= max) print p}' | sort -u >"$tmp/list"
echo "bench/debcorpus.sh: $(wc -l <"$tmp/list") packages with ELF files on the mirror (of $(sort -u "$tmp/elf" | wc -l) names), .deb files in $dir; load: $(cut -d' ' -f1-3 /proc/loadavg)"
ABIFLOOR_DEBCORPUS=1 ABIFLOOR_DEBCORPUS_LIST="$tmp/list" ABIFLOOR_DEBCORPUS_DIR="$dir" \
	go test -count=1 -timeout 2h -run '^TestDebCorpus$' -v ./cmd/abifloor 2>&1 | grep -v '^=== RUN' | tail -n "${TAIL:-400}"
