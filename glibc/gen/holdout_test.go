package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/glibc"
)

// TestHoldOut tests the derivation rules against a real release they did
// not see: the database is generated without one architecture's glibc 2.31
// (as for s390x, which has none) or 2.36 (then 2.31 and 2.41 surround it),
// and its view of that release must equal the real one, library by
// library, default flags included. Only the placeholder of a version node
// left empty (__libpthread_version_placeholder@GLIBC_2.2.6) cannot be known.
func TestHoldOut(t *testing.T) {
	dir := zigDir(t)
	z, _, err := loadZig(dir)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := defaultArgs()
	for _, hr := range []string{"x86_64:2.31", "aarch64:2.31", "i386:2.31", "x86_64:2.36", "aarch64:2.36", "i386:2.36"} {
		held, rel, _ := strings.Cut(hr, ":")
		t.Run(hr, func(t *testing.T) {
			var args []string
			var heldArg string
			for _, a := range all {
				if strings.HasPrefix(a, hr+"=") {
					heldArg = a
				} else {
					args = append(args, a)
				}
			}
			if heldArg == "" {
				t.Skipf("no glibc %s for %s (.ci/fetch-libc6.sh)", rel, held)
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
			real, _, err := readRelease(held, rel, strings.Split(dirs, ","), 0)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{}
			for k, e := range real.defs {
				want[k.lib] = append(want[k.lib], symString(e.Name, e.Version, e.Default))
			}
			got := map[string][]string{}
			for _, s := range a.Select(rel) {
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
				// A default the real release has and the derived one lacks
				// is the rules erring towards a failed link: logged, not
				// failed (__ivaliduser became compat-only somewhere after
				// 2.36; the rule says right after).
				var safe []string
				for _, l := range lacks {
					if c := strings.Replace(l, "@@", "@", 1); c != l {
						if i := slices.Index(extra, c); i >= 0 {
							safe = append(safe, l)
							extra = slices.Delete(extra, i, i+1)
							continue
						}
					}
				}
				lacks = slices.DeleteFunc(lacks, func(l string) bool { return slices.Contains(safe, l) })
				if len(safe) > 0 {
					t.Logf("%s without its %s: %s: defaults the rules drop early: %v", held, rel, lib, safe)
				}
				if len(lacks)+len(extra) > 0 {
					t.Errorf("%s without its %s: %s lacks %v, has extra %v", held, rel, lib, lacks, extra)
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
