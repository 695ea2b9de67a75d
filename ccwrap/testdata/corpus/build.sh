#!/bin/sh
# build.sh PROJECT SRC PREFIX: build one project of the abifloor cc corpus
# from its unpacked Debian source SRC (built in place: pass a copy) with its
# upstream build system and $CC/$CXX, and install it under PREFIX (bin/,
# lib/). $JOBS is make's -j (default 2). Used by ccwrap/corpus_test.go and
# bench/cc-corpus.sh. Nothing of a build is configured for abifloor: the
# projects build with their default options.
set -eu
p=$1 src=$2 prefix=$3
j=-j${JOBS:-2}
: "${CC:=cc}" "${CXX:=c++}"
export CC CXX
mkdir -p "$prefix/bin" "$prefix/lib"
cd "$src"
case $p in
zlib)
	./configure --prefix="$prefix"
	make $j
	make install
	cp example minigzip "$prefix/bin/"
	;;
xz-utils)
	./configure --prefix="$prefix" --disable-nls --disable-doc
	make $j
	make install
	;;
lua5.4)
	# Debian's build (libtool, multiarch paths) is two patches on
	# upstream's make linux: take them back out.
	patch -s -R -p1 <debian/patches/0002-lua-modules-paths.patch
	patch -s -R -p1 <debian/patches/0001-build-system.patch
	make $j linux CC="$CC"
	make install INSTALL_TOP="$prefix"
	;;
sqlite3)
	# The full tree: configure generates the amalgamation with tclsh.
	# --disable-static: the amalgamation is compiled once, not twice.
	# --disable-readline: configure's readline check is wrong when the
	# library cannot be linked but its header exists (libreadline-dev of a
	# newer glibc, hidden by abifloor; zig cc never links it): the header
	# test sets found=yes again after the library test said no, and the
	# shell is built with HAVE_READLINE=1 and without -lreadline.
	./configure --prefix="$prefix" --disable-tcl --disable-static --disable-readline
	make $j sqlite3 libsqlite3.la
	make install
	;;
bzip2)
	make $j CC="$CC" bzip2 bzip2recover
	make -f Makefile-libbz2_so CC="$CC"
	cp bzip2 bzip2recover "$prefix/bin/"
	cp libbz2.so.1.0.* "$prefix/lib/"
	;;
lz4)
	make $j CC="$CC" lib lz4
	make install CC="$CC" PREFIX="$prefix"
	;;
libzstd)
	# lib, then zstd: the two goals together under -j raced once here.
	make $j CC="$CC" CXX="$CXX" lib
	make $j CC="$CC" CXX="$CXX" zstd
	make install CC="$CC" PREFIX="$prefix"
	;;
jq)
	autoreconf -fi >/dev/null 2>&1
	./configure --prefix="$prefix" --disable-docs --disable-maintainer-mode
	make $j
	make install
	;;
expat)
	# Autotools, as Debian builds it: its security patches test
	# XML_DTD == 1, which CMake's expat_config.h leaves empty.
	cd expat
	./buildconf.sh >/dev/null 2>&1
	./configure --prefix="$prefix" --without-docbook --without-tests
	make $j
	make install
	;;
pcre2)
	./configure --prefix="$prefix"
	make $j
	make install
	;;
libpng1.6)
	./configure --prefix="$prefix"
	make $j
	make install
	cp .libs/pngtest "$prefix/bin/" 2>/dev/null || cp pngtest "$prefix/bin/"
	cp pngtest.png "$prefix/"
	;;
fmtlib)
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
		-DFMT_TEST=OFF -DFMT_DOC=OFF -DBUILD_SHARED_LIBS=ON -DCMAKE_INSTALL_LIBDIR=lib
	cmake --build build $j
	cmake --install build
	# A fmt test: a program of the library's API, linked to the shared fmt.
	cat >fmttest.cc <<'CC'
#include <fmt/format.h>
#include <fmt/chrono.h>
#include <fmt/ranges.h>
#include <vector>
#include <stdexcept>
int main() {
	std::vector<int> v{1, 2, 3};
	fmt::print("{:>8.3f}|{:#x}|{}|{}\n", 3.14159, 255, v, std::chrono::seconds(42));
	try { (void)fmt::format(fmt::runtime("{:d}"), "s"); } catch (const fmt::format_error &e) { fmt::print("error: {}\n", e.what()); }
	return 0;
}
CC
	$CXX -O2 -I"$prefix/include" -o "$prefix/bin/fmttest" fmttest.cc -L"$prefix/lib" -lfmt -Wl,-rpath,"$prefix/lib"
	;;
*)
	echo "build.sh: unknown project $p" >&2
	exit 2
	;;
esac
