#!/bin/sh
# sites.sh: what check's attribution (issue 31: call sites and causes)
# costs. On a large -g program: objdump -d -l (the peer: what a person
# runs to find the calls by hand) beside check --why; then check over
# /usr/bin with and without --why, and a tree where every file fails
# (debian-11), where every file is read for its sites.
#
# The program is built from SQLite's amalgamation, compiled once with -g
# -O2 and copied COPIES times by renaming its public names (objcopy
# --redefine-syms: seconds, where compiling each copy took minutes), with
# a call to arc4random (glibc 2.36): ABIFLOOR_SQLITE_C names sqlite3.c
# (or the go-sqlite3 module's sqlite3-binding.c, the default found under
# the module cache), COPIES defaults to 12 (about 59 MB with debug info).
# Prints CPU seconds (user+sys), what to compare on a busy machine, mean
# wall time, and each ratio (--why over plain check; a clean gate over
# scan, which reads no code).
#
# usage: ABIFLOOR_SQLITE_C=FILE COPIES=N bench/sites.sh
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/abifloor" ./cmd/abifloor
A=$tmp/abifloor
src=${ABIFLOOR_SQLITE_C:-}
if [ -z "$src" ]; then
	src=$(find "$(go env GOMODCACHE)" "$HOME/.cache/abifloor/testdata/gomod" -name sqlite3-binding.c 2>/dev/null | sort | tail -1 || true)
fi
[ -n "$src" ] && [ -e "$src" ] || { echo "no sqlite3.c: set ABIFLOOR_SQLITE_C" >&2; exit 2; }
copies=${COPIES:-12}

# usage COMMAND...: CPU seconds (user+sys) of one run.
cpu() {
	/usr/bin/time -f '%U %S' -o "$tmp/usage" "$@" >/dev/null 2>&1 || true
	tail -1 "$tmp/usage" | awk '{printf "%.3f\n", $1 + $2}'
}

# wall COMMAND...: mean wall seconds over 5 runs.
wall() {
	if command -v hyperfine >/dev/null; then
		hyperfine -N -i --warmup 1 --runs 5 --export-csv "$tmp/w.csv" "$*" >/dev/null 2>&1
		awk -F, 'NR == 2 {printf "%.3f\n", $2}' "$tmp/w.csv"
	else
		start=$(date +%s.%N)
		for _ in 1 2 3 4 5; do "$@" >/dev/null 2>&1 || true; done
		echo "$start $(date +%s.%N)" | awk '{printf "%.3f\n", ($2 - $1) / 5}'
	fi
}

# row LABEL COMMAND...: one line of CPU and wall; sets c and w.
row() {
	label=$1
	shift
	c=$(cpu "$@")
	w=$(wall "$@")
	printf '  %-46s %8s CPU %8s wall\n' "$label" "$c" "$w"
}

# ratio LABEL CPU1 WALL1 CPU2 WALL2: the second over the first.
ratio() {
	printf '  %-46s %7.2fx CPU %7.2fx wall\n' "$1" "$(echo "$4 $2" | awk '{print $1 / $2}')" "$(echo "$5 $3" | awk '{print $1 / $2}')"
}

cp "$src" "$tmp/sq.c"
gcc -w -g -O2 -DSQLITE_THREADSAFE=0 -c -o "$tmp/sq0.o" "$tmp/sq.c"
nm --defined-only --extern-only "$tmp/sq0.o" | awk '{print $3}' >"$tmp/names"
objs=$tmp/sq0.o
k=1
while [ "$k" -lt "$copies" ]; do
	awk -v k="$k" '{print $1 " " $1 "_" k}' "$tmp/names" >"$tmp/map$k"
	objcopy --redefine-syms="$tmp/map$k" "$tmp/sq0.o" "$tmp/sq$k.o"
	objs="$objs $tmp/sq$k.o"
	k=$((k + 1))
done
cat >"$tmp/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int sqlite3_libversion_number(void);
int main(void) { printf("%u %d\n", arc4random(), sqlite3_libversion_number()); return 0; }
C
# shellcheck disable=SC2086
gcc -g -O2 -o "$tmp/big" "$tmp/main.c" $objs -lm
big=$tmp/big
gcc -g -O2 -o "$tmp/one" "$tmp/main.c" "$tmp/sq0.o" -lm
echo "program: $(du -m "$big" | cut -f1) MB with debug info, $copies copies (load average: $(cut -d' ' -f1 /proc/loadavg))"
# The peer reads one copy, once: over the whole program it takes minutes.
/usr/bin/time -f '%U %S %e' -o "$tmp/usage" objdump -d -l "$tmp/one" >/dev/null 2>&1 || true
printf '  %-46s %8s CPU %8s wall\n' "objdump -d -l of one copy, $(du -m "$tmp/one" | cut -f1) MB (peer)" \
	"$(tail -1 "$tmp/usage" | awk '{printf "%.3f", $1 + $2}')" "$(tail -1 "$tmp/usage" | awk '{printf "%.3f", $3}')"
row "check --why --target debian-11 (goal: < 1 s)" "$A" check --why --target debian-11 "$big"

echo "/usr/bin, no debug info (load average: $(cut -d' ' -f1 /proc/loadavg))"
row "check --target debian-11" "$A" check --target debian-11 /usr/bin
c1=$c w1=$w
row "check --why --target debian-11" "$A" check --why --target debian-11 /usr/bin
ratio "--why over plain check (goal: at most 2x)" "$c1" "$w1" "$c" "$w"
row "scan (reads no code)" "$A" scan /usr/bin
c1=$c w1=$w
row "check --target debian-12 (a clean gate)" "$A" check --target debian-12 /usr/bin
ratio "clean gate over scan" "$c1" "$w1" "$c" "$w"
