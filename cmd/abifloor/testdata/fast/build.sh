#!/bin/sh
# build.sh: rebuild the committed fixtures of the fast tier (go test
# -short, which compiles nothing) from the sources TestGolden compiles
# when gcc is there. Run from this directory; review the golden diff
# after (go test ./cmd/abifloor -run Golden -update).
#
# Built on Debian 12 (bookworm), x86-64, with its gcc 12.2 and binutils
# 2.40; --build-id=none and -ffile-prefix-map keep the files free of
# what differs between two builds, and -z noseparate-code keeps them at
# 9 KB instead of 17 (no page of padding between code and data).
set -eu
cc() {
	out=$1
	shift
	gcc -shared -fPIC -g -O0 -ffile-prefix-map="$(cd ../../../.. && pwd)"=. \
		-Wl,--build-id=none -Wl,-z,noseparate-code -o "$out" "$@"
}
cc libfix.so ../../../../abi/abiread/testdata/fix.c
cc libv1.so ../../../../abidiff/testdata/v1.c -Wl,--version-script=../../../../abidiff/testdata/v1.map
cc libv2.so ../../../../abidiff/testdata/v2.c -Wl,--version-script=../../../../abidiff/testdata/v2.map
