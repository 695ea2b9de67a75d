package targets

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/symver"
)

// TestDistroRowsShip checks Debian rows against the runtime the release
// ships: .ci/fetch-runtime.sh unpacks each suite's libc6, libstdc++6 and
// libgcc-s1 (amd64) under $ABIFLOOR_RUNTIME/SUITE. Each row's limits must
// be the highest version its libraries define, and its package versions
// those of the suite (point releases only add a +debNuM suffix). Suites
// not fetched are skipped, and the test says so.
func TestDistroRowsShip(t *testing.T) {
	root := os.Getenv("ABIFLOOR_RUNTIME")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, ".cache", "abifloor", "runtime")
	}
	suites, _ := filepath.Glob(filepath.Join(root, "*", "versions"))
	if len(suites) == 0 {
		t.Skipf("no distro runtime under %s: run .ci/fetch-runtime.sh bullseye bookworm trixie", root)
	}
	for _, vf := range suites {
		dir := filepath.Dir(vf)
		suite := filepath.Base(dir)
		t.Run(suite, func(t *testing.T) {
			tg, err := Lookup(suite)
			if err != nil {
				t.Skipf("no target for suite %s", suite)
			}
			shipped := readVersions(t, vf)
			for pkg, got := range shipped {
				want, ok := tg.Packages[pkg]
				if !ok {
					continue
				}
				if got != want && !strings.HasPrefix(got, want+"+") {
					t.Errorf("%s: %s ships %s %s, the row says %s", tg.Name, suite, pkg, got, want)
				}
			}
			defined := map[string]string{}
			for lib, nss := range map[string][]string{
				"libc.so.6":      {"GLIBC"},
				"libstdc++.so.6": {"GLIBCXX", "CXXABI"},
				"libgcc_s.so.1":  {"GCC"},
			} {
				path := findLib(dir, lib)
				if path == "" {
					t.Fatalf("%s not unpacked under %s", lib, dir)
				}
				for ns, v := range highestDefined(t, path) {
					for _, want := range nss {
						if ns == want {
							defined[ns] = v
						}
					}
				}
			}
			// glibc releases without a new symbol on x86_64 (2.31) define
			// no version of their own: GLIBC is the release, and what libc
			// defines must be within it.
			release, _, _ := strings.Cut(shipped["libc6"], "-")
			if tg.Limits["GLIBC"] != release || symver.Compare(defined["GLIBC"], release) > 0 {
				t.Errorf("%s: %s ships glibc %s defining up to %s, the row says %q", tg.Name, suite, release, defined["GLIBC"], tg.Limits["GLIBC"])
			}
			delete(defined, "GLIBC")
			for ns, v := range defined {
				if tg.Limits[ns] != v {
					t.Errorf("%s: %s's libraries define %s up to %s, the row says %q", tg.Name, suite, ns, v, tg.Limits[ns])
				}
			}
		})
	}
}

func readVersions(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if pkg, v, ok := strings.Cut(sc.Text(), " "); ok {
			out[pkg] = v
		}
	}
	return out
}

func findLib(root, name string) string {
	for _, d := range []string{"lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64", "usr/lib64"} {
		if p := filepath.Join(root, d, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// highestDefined is the highest numeric version of each namespace the
// library at path defines.
func highestDefined(t *testing.T, path string) map[string]string {
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defs, err := f.VersionDefs()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range defs {
		if d.Base() {
			continue
		}
		if ns, v, ok := symver.Split(d.Name); ok {
			if cur, seen := out[ns]; !seen || symver.Compare(v, cur) > 0 {
				out[ns] = v
			}
		}
	}
	return out
}
