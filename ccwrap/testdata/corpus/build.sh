#!/bin/sh
# build.sh PROJECT SRC PREFIX: build one project of the abifloor cc corpus
# from its unpacked Debian source SRC (built in place: pass a copy) with its
# upstream build system and $CC/$CXX, and install it under PREFIX (bin/,
# lib/). $JOBS is make's -j (default 2). $PKG_CONFIG is configure's
# pkg-config and $TOOLCHAIN, when set, CMake's toolchain file (abifloor cc
# --install writes both); $FLOORED is set for the build through the
# wrappers, and $SRCROOT holds the other projects' sources (tmux builds
# its libraries from them). Used by ccwrap/corpus_test.go and
# bench/cc-corpus.sh. Nothing of a build is configured for abifloor: the
# projects build with their default options.
set -eu
p=$1 src=$2 prefix=$3
j=-j${JOBS:-2}
: "${CC:=cc}" "${CXX:=c++}" "${PKG_CONFIG:=pkg-config}"
export CC CXX PKG_CONFIG
# cmake_toolchain: the -D of $TOOLCHAIN, when set.
cmake_toolchain() { [ -z "${TOOLCHAIN:-}" ] || echo "-DCMAKE_TOOLCHAIN_FILE=$TOOLCHAIN"; }
# build_libevent SRC PREFIX: libevent as the project libevent builds it.
build_libevent() (
	cd "$1"
	# Debian's patches touch Makefile.am: its build files are made again.
	autoreconf -fi >/dev/null 2>&1
	# OpenSSL: libevent's configure insists on it unless told not to, and
	# this host's libssl is built for glibc 2.33 (2.34 its libcrypto):
	# for 2.17 configure says "openssl is a must but can not be found", as
	# on a host without it. Both builds leave it out.
	./configure --prefix="$2" --disable-openssl
	make $j
	make install
)
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
pcre2-cmake)
	# pcre2's own CMake build with its default options: it finds the
	# host's libreadline by path (without a link test) unless the
	# toolchain file's find_library refuses it; zlib and bzip2 it takes.
	# shellcheck disable=SC2046
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" $(cmake_toolchain)
	cmake --build build $j
	cmake --install build
	;;
libevent)
	build_libevent . "$prefix"
	# A program of the library's API, found through pkg-config (the
	# wrapper's, for the floor: this libevent, built for it, is shown).
	cat >evtest.c <<'C'
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>
#include <stdio.h>
#include <string.h>
static int fired;
static void tick(evutil_socket_t fd, short what, void *arg) {
	(void)fd; (void)what;
	printf("timer %d\n", *(int *)arg);
	fired++;
}
static void readcb(struct bufferevent *bev, void *arg) {
	char buf[64];
	size_t n = bufferevent_read(bev, buf, sizeof buf - 1);
	buf[n] = 0;
	printf("pair read: %s\n", buf);
	event_base_loopexit(arg, NULL);
}
int main(void) {
	struct event_base *base = event_base_new();
	printf("libevent %s, method %s\n", event_get_version(), event_base_get_method(base));
	int ids[3] = {3, 1, 2};
	for (int i = 0; i < 3; i++) {
		struct timeval tv = {0, 1000 * (ids[i] * 20)};
		event_base_once(base, -1, EV_TIMEOUT, tick, &ids[i], &tv);
	}
	event_base_dispatch(base);
	struct evbuffer *b = evbuffer_new();
	evbuffer_add_printf(b, "%s-%d", "abifloor", 217);
	evbuffer_add(b, " ok", 3);
	char out[32] = {0};
	evbuffer_remove(b, out, sizeof out - 1);
	printf("evbuffer: %s (%zu left)\n", out, evbuffer_get_length(b));
	struct bufferevent *pair[2];
	bufferevent_pair_new(base, 0, pair);
	bufferevent_setcb(pair[1], readcb, NULL, NULL, base);
	bufferevent_enable(pair[1], EV_READ);
	bufferevent_write(pair[0], "through the pair", 16);
	event_base_dispatch(base);
	unsigned char r1[32], r2[32];
	evutil_secure_rng_get_bytes(r1, sizeof r1);
	evutil_secure_rng_get_bytes(r2, sizeof r2);
	printf("secure rng: %s\n", memcmp(r1, r2, sizeof r1) ? "differs" : "SAME");
	printf("timers fired: %d\n", fired);
	return 0;
}
C
	# shellcheck disable=SC2046
	$CC -O2 -o "$prefix/bin/evtest" evtest.c $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" $PKG_CONFIG --cflags --libs libevent) -Wl,-rpath,"$prefix/lib"
	;;
tmux)
	if [ -n "${FLOORED:-}" ]; then
		# For the floor, this host's libevent and ncurses are refused
		# (built for 2.36 and 2.34): configure first says so in one
		# line, as under zig, not with "conflicting types for 'forkpty'"
		# from a probe that linked the host's libevent. Then both are
		# built for the floor with the same compilers and found through
		# PKG_CONFIG_PATH, as a user would.
		if ./configure --prefix="$prefix" >nodeps.log 2>&1; then
			echo "build.sh: tmux configured with this host's libevent and ncurses" >&2
			exit 1
		fi
		if ! tail -n 1 nodeps.log | grep -q 'error: "libevent not found"'; then
			tail -n 20 nodeps.log >&2
			exit 1
		fi
		echo "tmux without libraries for the floor: $(tail -n 1 nodeps.log)"
		rm -rf "$src/deps" && mkdir "$src/deps"
		cp -a "$SRCROOT/libevent" "$SRCROOT/ncurses" "$src/deps/"
		build_libevent "$src/deps/libevent" "$prefix"
		(
			cd "$src/deps/ncurses"
			# The libraries only, with pkg-config files and the host's
			# terminfo database (as Debian's are).
			./configure --prefix="$prefix" --with-shared --without-normal --without-debug \
				--without-cxx-binding --without-ada --without-tests --without-progs --without-manpages \
				--with-termlib --enable-pc-files --with-pkg-config-libdir="$prefix/lib/pkgconfig" \
				--with-terminfo-dirs=/etc/terminfo:/lib/terminfo:/usr/share/terminfo \
				--with-default-terminfo-dir=/usr/share/terminfo --disable-db-install
			make $j libs
			make install.libs
		)
		export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
	fi
	./configure --prefix="$prefix"
	make $j
	make install
	;;
libsodium)
	autoreconf -fi >/dev/null 2>&1
	./configure --prefix="$prefix"
	make $j
	make install
	# Its random bytes come from getrandom (2.25: polyfilled for 2.17).
	cat >sodiumtest.c <<'C'
#include <sodium.h>
#include <stdio.h>
#include <string.h>
int main(void) {
	if (sodium_init() < 0) return 1;
	unsigned char h[crypto_generichash_BYTES];
	char hex[2 * sizeof h + 1];
	crypto_generichash(h, sizeof h, (const unsigned char *)"abifloor", 8, NULL, 0);
	printf("blake2b: %s\n", sodium_bin2hex(hex, sizeof hex, h, sizeof h));
	unsigned char key[crypto_secretbox_KEYBYTES], nonce[crypto_secretbox_NONCEBYTES];
	unsigned char c[crypto_secretbox_MACBYTES + 16], m[17] = {0};
	randombytes_buf(key, sizeof key);
	randombytes_buf(nonce, sizeof nonce);
	crypto_secretbox_easy(c, (const unsigned char *)"sixteen bytes ok", 16, nonce, key);
	int bad = crypto_secretbox_open_easy(m, c, sizeof c, nonce, key);
	printf("secretbox: %s %s\n", bad ? "FAIL" : "opened", m);
	uint32_t u = randombytes_uniform(10);
	printf("uniform below 10: %s\n", u < 10 ? "yes" : "NO");
	return 0;
}
C
	# shellcheck disable=SC2046
	$CC -O2 -o "$prefix/bin/sodiumtest" sodiumtest.c $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" $PKG_CONFIG --cflags --libs libsodium) -Wl,-rpath,"$prefix/lib"
	;;
brotli)
	# shellcheck disable=SC2046
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib $(cmake_toolchain)
	cmake --build build $j
	cmake --install build
	;;
cjson)
	# shellcheck disable=SC2046
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib $(cmake_toolchain)
	cmake --build build $j
	cmake --install build
	cp build/cJSON_test "$prefix/bin/"
	;;
lmdb)
	cd libraries/liblmdb
	make $j CC="$CC"
	make install CC="$CC" prefix="$prefix"
	;;
fmtlib)
	# shellcheck disable=SC2046
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" $(cmake_toolchain) \
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
