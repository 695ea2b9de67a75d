package glibc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realRelease is one real glibc release on this machine (or fetched by
// .ci/fetch-libc6.sh) whose libraries the database must reproduce.
type realRelease struct {
	arch, release string
	dirs          []string
	fetch         string // how to get it when missing
}

func realReleases() []realRelease {
	home, _ := os.UserHomeDir()
	libc6 := os.Getenv("ABIFLOOR_LIBC6")
	if libc6 == "" {
		libc6 = filepath.Join(home, ".cache/abifloor/libc6")
	}
	fetched := func(arch, deb, multi, suite, release string) realRelease {
		root := filepath.Join(libc6, suite, deb)
		return realRelease{arch, release,
			[]string{filepath.Join(root, "lib", multi), filepath.Join(root, "usr/lib", multi), filepath.Join(root, "lib64")},
			"sh .ci/fetch-libc6.sh " + suite + " " + deb}
	}
	return []realRelease{
		{"x86_64", "2.36", []string{"/usr/lib/x86_64-linux-gnu", "/lib64"}, "a Debian bookworm host"},
		{"aarch64", "2.36", []string{"/usr/aarch64-linux-gnu/lib"}, "apt-get install libc6-dev-arm64-cross"},
		{"i386", "2.36", []string{"/usr/i686-linux-gnu/lib"}, "apt-get install libc6-dev-i386-cross"},
		{"s390x", "2.36", []string{"/usr/s390x-linux-gnu/lib"}, "apt-get install libc6-dev-s390x-cross"},
		fetched("x86_64", "amd64", "x86_64-linux-gnu", "bullseye", "2.31"),
		fetched("aarch64", "arm64", "aarch64-linux-gnu", "bullseye", "2.31"),
		fetched("i386", "i386", "i386-linux-gnu", "bullseye", "2.31"),
		fetched("x86_64", "amd64", "x86_64-linux-gnu", "trixie", "2.41"),
		fetched("aarch64", "arm64", "aarch64-linux-gnu", "trixie", "2.41"),
		fetched("i386", "i386", "i386-linux-gnu", "trixie", "2.41"),
	}
}

// TestExactReleases compares, library by library, what the database says
// release X of each architecture exports with what the real libraries of X
// export: every name@VER and name@@VER, GLIBC_PRIVATE aside.
func TestExactReleases(t *testing.T) {
	ran := 0
	for _, rr := range realReleases() {
		t.Run(rr.arch+"-"+rr.release, func(t *testing.T) {
			libc := findIn(rr.dirs, "libc.so.6")
			if libc == "" {
				t.Skipf("no glibc %s for %s here (%s)", rr.release, rr.arch, rr.fetch)
			}
			if got, err := LibcRelease(libc); err != nil || got != rr.release {
				t.Skipf("%s is glibc %q (%v), not %s", libc, got, err, rr.release)
			}
			a, err := LoadArch(rr.arch, true)
			if err != nil {
				t.Fatal(err)
			}
			stubs := map[string]StubLib{}
			for _, s := range a.Select(rr.release) {
				stubs[s.Soname] = s
			}
			for _, l := range a.Libs {
				path := findIn(rr.dirs, l.Soname)
				var real []string
				if path != "" {
					exps, err := ReadLibrary(path, a.Name)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range exps {
						at := "@"
						if e.Default {
							at = "@@"
						}
						real = append(real, e.Name+at+e.Version)
					}
					slices.Sort(real)
				}
				got := stubStrings(stubs[l.Soname])
				if missing, extra := diff(real, got); len(missing)+len(extra) > 0 {
					t.Errorf("%s %s: the database lacks %d of the real exports %s and has %d it lacks %s",
						l.Soname, rr.release, len(missing), head(missing), len(extra), head(extra))
				}
			}
			ran++
		})
	}
	if ran == 0 {
		t.Skip("no real glibc release here")
	}
}

func findIn(dirs []string, lib string) string {
	for _, d := range dirs {
		p := filepath.Join(d, lib)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// diff returns what is only in a and only in b (both sorted).
func diff(a, b []string) (onlyA, onlyB []string) {
	for _, s := range a {
		if _, ok := slices.BinarySearch(b, s); !ok {
			onlyA = append(onlyA, s)
		}
	}
	for _, s := range b {
		if _, ok := slices.BinarySearch(a, s); !ok {
			onlyB = append(onlyB, s)
		}
	}
	return onlyA, onlyB
}

func head(s []string) string {
	if len(s) > 8 {
		return strings.Join(s[:8], " ") + " ..."
	}
	return strings.Join(s, " ")
}

func TestLibcRelease(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"none":  "no banner here",
		"empty": "stable release version .",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if v, err := LibcRelease(p); err == nil {
			t.Errorf("%s: release %q, want an error", name, v)
		}
	}
	p := filepath.Join(dir, "ok")
	os.WriteFile(p, []byte("GNU C Library (Debian GLIBC 2.31-13+deb11u11) stable release version 2.31.\n"), 0o644)
	if v, err := LibcRelease(p); err != nil || v != "2.31" {
		t.Errorf("ok: %q, %v", v, err)
	}
	if _, err := LibcRelease(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file has a release")
	}
}
