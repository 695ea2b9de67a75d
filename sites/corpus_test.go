package sites

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
)

// sitesCorpus are the projects of the cc corpus (ccwrap/corpus_test.go,
// sources fetched by .ci/fetch-cccorpus.sh) the call-site truth test
// builds, and "go", a Go program with cgo.
var sitesCorpus = []string{"zlib", "lz4", "jq", "pcre2", "lua5.4", "libzstd", "fmtlib", "sqlite3", "go"}

// TestSitesCorpus builds real projects on this machine with -g -O2 and
// their own build systems (ccwrap/testdata/corpus/build.sh, plain gcc
// and g++), and a Go program with cgo, and holds every ELF file they
// install to objdump -d -l: each call and GOT reference objdump shows to
// a versioned glibc or libstdc++ symbol is a site, with its function and
// file:line, and each site is one objdump shows; the same again with the
// DWARF moved to a separate debug file found by .gnu_debuglink, and by
// build ID under a debug directory.
//
// It takes minutes, so it runs only when ABIFLOOR_SITESCORPUS is set: 1
// (or all) for every project, or a comma-separated list of them. .ci/run
// runs a subset; once it is set, a missing input fails the test.
func TestSitesCorpus(t *testing.T) {
	gate := os.Getenv("ABIFLOOR_SITESCORPUS")
	if gate == "" {
		t.Skip("the call-site corpus (minutes) runs with ABIFLOOR_SITESCORPUS=1 or a list of projects, as .ci/run does")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the corpus builds x86_64 Linux programs")
	}
	want := map[string]bool{}
	for _, p := range strings.Split(gate, ",") {
		switch p = strings.TrimSpace(p); p {
		case "1", "all":
			for _, q := range sitesCorpus {
				want[q] = true
			}
		default:
			want[p] = true
		}
	}
	for p := range want {
		if !contains(sitesCorpus, p) {
			t.Fatalf("ABIFLOOR_SITESCORPUS names %q, not one of %v", p, sitesCorpus)
		}
	}
	for _, tool := range []string{"gcc", "g++", "make", "objdump", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("ABIFLOOR_SITESCORPUS is set but %s is not installed", tool)
		}
	}
	objdump, _ := exec.LookPath("objdump")
	home, _ := os.UserHomeDir()
	srcRoot := os.Getenv("ABIFLOOR_CCCORPUS_SRC")
	if srcRoot == "" {
		srcRoot = filepath.Join(home, ".cache/abifloor/cccorpus")
	}
	build, err := filepath.Abs("../ccwrap/testdata/corpus/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	var total struct{ binaries, symbols, shown, sites, readelf int }
	for _, p := range sitesCorpus {
		if !want[p] {
			continue
		}
		t.Run(p, func(t *testing.T) {
			dir := filepath.Join(work, p)
			var prefix string
			if p == "go" {
				prefix = buildCgo(t, dir)
			} else {
				prefix = buildProject(t, build, p, filepath.Join(srcRoot, p), dir)
			}
			files := corpusELF(t, prefix)
			if len(files) == 0 {
				t.Fatalf("no dynamically linked x86-64 ELF file under %s", prefix)
			}
			for _, path := range files {
				syms := runtimeImports(t, path)
				if len(syms) == 0 {
					continue
				}
				rel, _ := filepath.Rel(prefix, path)
				t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
					res := find(t, path, syms, Options{})
					dwarf := fileHasDWARF(t, path)
					if dwarf && !res.Lines {
						t.Errorf("no line information read (built with -g): %v", res.Notes)
					}
					alt := readelfLines(t, path)
					shown, sites := checkTruth(t, objdump, path, res, syms, alt)
					if alt.used > 0 {
						t.Logf("%d lines where objdump shows none or another, readelf's as the sites'", alt.used)
					}
					total.readelf += alt.used
					if dwarf {
						checkSplit(t, path, syms, res)
					} else {
						// A program the project builds without -g
						// (fmt's test program): nothing to split.
						t.Logf("no DWARF: sites by function only, as objdump shows them")
					}
					total.binaries++
					total.symbols += len(syms)
					total.shown += shown
					total.sites += sites
				})
			}
		})
	}
	t.Logf("%d binaries, %d versioned glibc and libstdc++ symbols: %d uses objdump shows (and data words), %d sites (%d lines where objdump shows none or another file, readelf agreeing with the site), all agreeing (failures above otherwise)",
		total.binaries, total.symbols, total.shown, total.sites, total.readelf)
	if total.binaries == 0 && !t.Failed() {
		t.Fatal("no binary compared")
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// buildProject builds project p from src (copied into dir) with
// build.sh, gcc and g++, -g -O2, and returns its install prefix.
func buildProject(t *testing.T, build, p, src, dir string) string {
	t.Helper()
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("no source of %s (run .ci/fetch-cccorpus.sh %s): %v", p, p, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "src")
	if out, err := exec.Command("cp", "-a", src, tree).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "prefix")
	cmd := exec.Command("sh", build, p, tree, prefix)
	// MAKEFLAGS' MYCFLAGS reaches Lua's makefile, which sets its own
	// CFLAGS; the other build systems take CFLAGS and CXXFLAGS.
	cmd.Env = append(os.Environ(), "CC=gcc", "CXX=g++", "CFLAGS=-g -O2", "CXXFLAGS=-g -O2", "MAKEFLAGS=MYCFLAGS=-g", "JOBS=2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("build of %s failed: %v\n%s", p, err, lastLines(out, 30))
	}
	return prefix
}

// cgoMain is a Go program with cgo: the cgo resolver, os/user, and C of
// its own that calls glibc.
const cgoMain = `package main

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static long parse(const char *s) { char buf[32]; strncpy(buf, s, sizeof buf - 1); buf[31] = 0; return strtol(buf, 0, 10); }
*/
import "C"

import (
	"fmt"
	"net"
	"os/user"
)

func main() {
	addrs, _ := net.LookupHost("localhost")
	u, _ := user.LookupId("0")
	cs := C.CString("42")
	fmt.Println(len(addrs), u != nil, C.parse(cs))
}
`

// buildCgo builds cgoMain (CGO_CFLAGS is go's default, -g -O2) and
// returns the directory holding it.
func buildCgo(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("ABIFLOOR_SITESCORPUS names go, and go is not on PATH")
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module cgosites\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(cgoMain), 0o644)
	for _, mode := range []string{"internal", "external"} {
		cmd := exec.Command("go", "build", "-ldflags=-linkmode="+mode, "-o", filepath.Join(dir, "bin", "cgo-"+mode), ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -linkmode=%s: %v\n%s", mode, err, lastLines(out, 30))
		}
	}
	return filepath.Join(dir, "bin")
}

// corpusELF lists the dynamically linked x86-64 ELF files under root.
func corpusELF(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := elfx.Open(p)
		if err != nil {
			return nil
		}
		ok := f.Dynamic != nil && archOf(f) == archX86 && elf.Type(f.Type) != elf.ET_REL
		f.Close()
		if ok {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// runtimeImports are path's versioned imports from glibc and libstdc++
// (GLIBC_, GLIBCXX_, CXXABI_): what a floor names.
func runtimeImports(t *testing.T, path string) []string {
	var out []string
	for _, s := range imports(t, path) {
		_, v, _ := strings.Cut(s, "@")
		if strings.HasPrefix(v, "GLIBC_") || strings.HasPrefix(v, "GLIBCXX_") || strings.HasPrefix(v, "CXXABI_") {
			out = append(out, s)
		}
	}
	return out
}

func lastLines(b []byte, n int) string {
	l := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// fileHasDWARF reports whether path carries DWARF of its own.
func fileHasDWARF(t *testing.T, path string) bool {
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.HasDWARF()
}
