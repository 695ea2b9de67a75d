#!/usr/bin/env bash
# What abifloor cc costs on top of the compiler.
#
#   bench/stubs.sh
#
# 1. plain gcc  vs  abifloor cc with a warm cache  vs  a cold cache (stubs
#    built on every run: the first build of a project, or a new version)
# 2. abifloor stubs alone (what a cold cache pays)
#
# Needs hyperfine and gcc.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in hyperfine gcc jq; do
	command -v "$tool" >/dev/null || { echo "bench/stubs.sh: $tool is not installed" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/abifloor" ./cmd/abifloor
af="$out/abifloor"
cat >"$out/p.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <pthread.h>
static void *run(void *a) { return a; }
int main(int argc, char **argv) {
	char b[64]; pthread_t t;
	memcpy(b, argv[0], 1);
	pthread_create(&t, 0, run, 0);
	pthread_join(t, 0);
	printf("%c\n", b[0]);
	return 0;
}
C
"$af" cc --glibc 2.17 --cache-dir "$out/warm" -- gcc -O2 -pthread -o "$out/p" "$out/p.c"

echo "== 1. compile and link one C file"
hyperfine --warmup 2 --runs 20 -N --export-json "$out/cc.json" \
	-n gcc "gcc -O2 -pthread -o $out/p $out/p.c" \
	-n 'abifloor cc (warm)' "$af cc --glibc 2.17 --cache-dir $out/warm -- gcc -O2 -pthread -o $out/p $out/p.c" \
	-n 'abifloor cc (cold)' --prepare "rm -rf $out/cold" "$af cc --glibc 2.17 --cache-dir $out/cold -- gcc -O2 -pthread -o $out/p $out/p.c"
jq -r '.results as $r | "warm/gcc: \(($r[1].median / $r[0].median * 100 | round) / 100)x   cold/gcc: \(($r[2].median / $r[0].median * 100 | round) / 100)x"' "$out/cc.json"

echo "== 2. abifloor stubs"
hyperfine --warmup 1 --runs 10 -N --prepare "rm -rf $out/s" \
	-n 'stubs 2.17 x86_64' "$af stubs --glibc 2.17 --arch x86_64 -o $out/s"
