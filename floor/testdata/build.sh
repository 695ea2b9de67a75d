#!/bin/sh
# build.sh: rebuild libgrow.so, the committed fixture of floor's examples
# (go test runs them with no compiler). Run from this directory.
#
# Built on Debian 12 (bookworm), x86-64, with its gcc 12.2 and binutils
# 2.40; --build-id=none keeps the file free of what differs between two
# builds, and -z noseparate-code keeps it small.
set -eu
gcc -shared -fPIC -O2 -Wl,--build-id=none -Wl,-z,noseparate-code -o libgrow.so grow.c
