package glibc

import (
	"slices"
	"testing"
)

// TestDerivedReleases checks the embedded data for releases no real
// library here shows, one rule of glibc's history per row: where a symbol
// lived, and whether it was the default, in that release.
func TestDerivedReleases(t *testing.T) {
	tests := []struct {
		arch, release, lib, sym string // sym: name@VER, name@@VER
		want                    bool
		why                     string
	}{
		// 2.34 moved libpthread, libdl, librt, libutil, libanl and parts of
		// libresolv into libc.
		{"x86_64", "2.17", "libanl.so.1", "gai_cancel@@GLIBC_2.2.5", true, "gai_* lived in libanl"},
		{"x86_64", "2.17", "libc.so.6", "gai_cancel@GLIBC_2.2.5", false, "libc had no gai_* before 2.34"},
		{"x86_64", "2.33", "libanl.so.1", "gai_cancel@@GLIBC_2.2.5", true, "libanl until 2.34"},
		{"x86_64", "2.34", "libanl.so.1", "gai_cancel@@GLIBC_2.2.5", false, "moved in 2.34"},
		{"x86_64", "2.34", "libc.so.6", "gai_cancel@GLIBC_2.2.5", true, "compat copy in libc from 2.34"},
		{"x86_64", "2.34", "libc.so.6", "gai_cancel@@GLIBC_2.34", true, "new default in libc"},
		{"x86_64", "2.28", "libresolv.so.2", "__dn_expand@@GLIBC_2.2.5", true, "libresolv before 2.34"},
		{"x86_64", "2.28", "libc.so.6", "__dn_expand@GLIBC_2.2.5", false, "not in libc before 2.34"},
		{"x86_64", "2.17", "libpthread.so.0", "_IO_flockfile@@GLIBC_2.2.5", true, "libpthread's own copy"},
		{"x86_64", "2.17", "libc.so.6", "_IO_flockfile@@GLIBC_2.2.5", true, "and libc's"},
		{"x86_64", "2.17", "libpthread.so.0", "pthread_create@@GLIBC_2.2.5", true, "libpthread before 2.34"},
		{"x86_64", "2.17", "libc.so.6", "pthread_create@GLIBC_2.2.5", false, "not in libc before 2.34"},
		{"aarch64", "2.33", "libpthread.so.0", "pthread_create@@GLIBC_2.17", true, "aarch64 libpthread"},
		{"aarch64", "2.33", "libpthread.so.0", "pthread_clockjoin_np@@GLIBC_2.31", true, "libpthread until 2.34"},
		{"aarch64", "2.33", "libc.so.6", "pthread_clockjoin_np@GLIBC_2.31", false, "libc only from 2.34"},
		{"x86_64", "2.32", "libc.so.6", "pthread_sigmask@@GLIBC_2.32", true, "born in libc in 2.32"},
		{"x86_64", "2.32", "libpthread.so.0", "pthread_sigmask@@GLIBC_2.2.5", true, "libpthread kept its own until 2.34"},
		{"s390x", "2.17", "libanl.so.1", "gai_cancel@@GLIBC_2.2.3", true, "s390x has no real release before 2.34: libanl from the others"},
		{"s390x", "2.17", "libc.so.6", "gai_cancel@GLIBC_2.2.3", false, "nor libc's copy"},
		{"s390x", "2.28", "libpthread.so.0", "pthread_create@@GLIBC_2.2", true, "s390x libpthread from zig's abilists"},
		{"s390x", "2.28", "libpthread.so.0", "__libpthread_version_placeholder@GLIBC_2.2", false, "placeholders came in 2.34"},
		{"s390x", "2.28", "ld64.so.1", "calloc@@GLIBC_2.2", true, "ld.so's malloc, as the other architectures' 2.31 have it"},
		{"s390x", "2.32", "ld64.so.1", "calloc@@GLIBC_2.2", false, "until 2.32"},
		{"s390x", "2.28", "libc.so.6", "clnt_create@@GLIBC_2.2", true, "Sun RPC a default until 2.32, as the others' 2.31"},
		{"s390x", "2.32", "libc.so.6", "clnt_create@GLIBC_2.2", true, "compat from 2.32"},
		{"s390x", "2.28", "libpthread.so.0", "fork@GLIBC_2.2", true, "libpthread's forwarder compat, as the others' 2.31"},
		// 2.17 moved clock_* from librt to libc; librt kept compat copies.
		{"x86_64", "2.16", "librt.so.1", "clock_gettime@@GLIBC_2.2.5", true, "librt before 2.17"},
		{"x86_64", "2.16", "libc.so.6", "clock_gettime@GLIBC_2.2.5", false, "libc from 2.17"},
		{"x86_64", "2.17", "librt.so.1", "clock_gettime@GLIBC_2.2.5", true, "librt's compat copy"},
		{"x86_64", "2.17", "libc.so.6", "clock_gettime@@GLIBC_2.17", true, "libc's default"},
		{"x86_64", "2.17", "libc.so.6", "clock_gettime@GLIBC_2.2.5", true, "libc's compat"},
		{"x86_64", "2.31", "librt.so.1", "clock_gettime@GLIBC_2.2.5", false, "gone from librt in the real 2.31"},
		// Compat-only symbols.
		{"x86_64", "2.17", "libc.so.6", "malloc_get_state@@GLIBC_2.2.5", true, "default before 2.25"},
		{"x86_64", "2.28", "libc.so.6", "malloc_get_state@GLIBC_2.2.5", true, "compat from 2.25"},
		{"x86_64", "2.34", "libc.so.6", "malloc_get_state@GLIBC_2.2.5", false, "gone from libc in 2.34"},
		{"x86_64", "2.17", "libm.so.6", "matherr@@GLIBC_2.2.5", true, "default before 2.27"},
		{"x86_64", "2.28", "libm.so.6", "matherr@GLIBC_2.2.5", true, "compat from 2.27"},
		{"x86_64", "2.28", "libm.so.6", "__isnanf128@@GLIBC_2.26", true, "libm before 2.34"},
		{"x86_64", "2.17", "libm.so.6", "__isnanf128@@GLIBC_2.26", false, "newer than 2.17"},
		{"x86_64", "2.32", "libc.so.6", "sys_errlist@GLIBC_2.12", true, "compat from 2.32"},
		{"x86_64", "2.28", "libc.so.6", "sys_errlist@@GLIBC_2.12", true, "default before"},
		// ld.so's minimal malloc until 2.32.
		{"x86_64", "2.28", "ld-linux-x86-64.so.2", "calloc@@GLIBC_2.2.5", true, "ld.so exported calloc"},
		{"x86_64", "2.28", "ld-linux-x86-64.so.2", "free@@GLIBC_2.2.5", true, "and free"},
		{"x86_64", "2.32", "ld-linux-x86-64.so.2", "calloc@@GLIBC_2.2.5", false, "not from 2.32"},
		{"i386", "2.17", "ld-linux.so.2", "calloc@@GLIBC_2.0", true, "i686 too"},
		// Defaults: a newer version takes over in its release.
		{"x86_64", "2.13", "libc.so.6", "memcpy@@GLIBC_2.2.5", true, "before 2.14"},
		{"x86_64", "2.14", "libc.so.6", "memcpy@@GLIBC_2.14", true, "from 2.14"},
		{"x86_64", "2.14", "libc.so.6", "memcpy@GLIBC_2.2.5", true, "kept as compat"},
		{"i386", "2.33", "libc.so.6", "lseek64@@GLIBC_2.1", true, "libc's own default stays while libpthread has 2.2"},
		{"i386", "2.33", "libpthread.so.0", "lseek64@@GLIBC_2.2", true, "libpthread's"},
		{"i386", "2.34", "libc.so.6", "lseek64@GLIBC_2.2", true, "the moved copy is compat"},
		// Per-architecture first versions; libmvec by architecture.
		{"aarch64", "2.17", "libc.so.6", "memcpy@@GLIBC_2.17", true, "aarch64 starts at 2.17"},
		{"x86_64", "2.21", "libmvec.so.1", "_ZGVbN2v_cos@@GLIBC_2.22", false, "libmvec came in 2.22"},
		{"x86_64", "2.22", "libmvec.so.1", "_ZGVbN2v_cos@@GLIBC_2.22", true, "x86_64 libmvec"},
	}
	arches := map[string]*Arch{}
	for _, tt := range tests {
		a := arches[tt.arch]
		if a == nil {
			var err error
			if a, err = LoadArch(tt.arch, true); err != nil {
				t.Fatal(err)
			}
			arches[tt.arch] = a
		}
		var got []string
		for _, s := range a.Select(tt.release) {
			if s.Soname == tt.lib {
				got = stubStrings(s)
			}
		}
		if _, has := slices.BinarySearch(got, tt.sym); has != tt.want {
			t.Errorf("%s %s %s: has %s = %v, want %v (%s)", tt.arch, tt.release, tt.lib, tt.sym, has, tt.want, tt.why)
		}
	}
	// aarch64 had no libmvec before 2.38: no stub at all.
	a := arches["aarch64"]
	for _, s := range a.Select("2.36") {
		if s.Soname == "libmvec.so.1" {
			t.Errorf("aarch64 2.36 has a libmvec stub")
		}
	}
}

// TestEveryRelease checks, for every release of every architecture from
// its first version (2.17 at the latest) to its newest, what any release's
// libraries obey: a name has at most one default version per library, no
// name@VER appears twice in one library, and libc and the loader exist.
func TestEveryRelease(t *testing.T) {
	db, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range db.Arches {
		releases := map[string]bool{}
		for _, l := range a.Libs {
			for _, v := range l.Versions {
				releases[verNum(v)] = true
			}
		}
		for r := range releases {
			if _, err := a.Check(r); err != nil {
				continue
			}
			libs := map[string]bool{}
			for _, s := range a.Select(r) {
				libs[s.Soname] = true
				defaults := map[string]string{}
				seen := map[string]bool{}
				for _, sym := range s.Syms {
					if seen[sym.Name+"@"+sym.Version] {
						t.Errorf("%s %s %s: %s@%s twice", a.Name, r, s.Soname, sym.Name, sym.Version)
					}
					seen[sym.Name+"@"+sym.Version] = true
					if !sym.Default {
						continue
					}
					if d, ok := defaults[sym.Name]; ok {
						t.Errorf("%s %s %s: %s has two defaults, %s and %s", a.Name, r, s.Soname, sym.Name, d, sym.Version)
					}
					defaults[sym.Name] = sym.Version
				}
			}
			if !libs["libc.so.6"] || !libs[a.Loader] {
				t.Errorf("%s %s: no libc or loader stub (%v)", a.Name, r, libs)
			}
		}
	}
}
