package abiread

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// oneString is n bytes of one NUL-terminated string: runs of 'A', broken
// by a random letter when broken, which zlib and gzip then shrink about
// 170 times, not 1000.
func oneString(n int, broken bool) []byte {
	if !broken {
		return append(bytes.Repeat([]byte{'A'}, n), 0)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 0, n+512)
	for len(b) < n {
		b = append(b, bytes.Repeat([]byte{'A'}, 500)...)
		b = append(b, byte('A'+r.IntN(26)))
	}
	return append(b[:n], 0)
}

// noise is n bytes no compressor shrinks: what makes an attack's input
// big enough for its allowance.
func noise(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// sharedStringLib compiles a small library with DWARF and gives it a
// .debug_str of one string of n bytes, which every name of its DWARF
// then points into; with compress, the debug sections are zlib
// compressed and a .noise section of noiseN bytes makes the file's size.
func sharedStringLib(t *testing.T, dir string, n int, compress bool, noiseN int) string {
	t.Helper()
	objcopy := fixture.Compiler(t, "objcopy")
	lib := fixture.Build(t, "gcc", dir, "s.c", "struct s { int a; long b; };\nstruct t { struct s s; char c; };\nint f(struct s *p) { return p->a; }\nint g(struct t *p) { return p->c; }\n", "libs.so", "-g", "-shared", "-fPIC")
	str := filepath.Join(dir, "str")
	if err := os.WriteFile(str, oneString(n, compress && noiseN > 0), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, fmt.Sprintf("lib%d.so", n))
	args := []string{"--update-section", ".debug_str=" + str}
	if noiseN > 0 {
		nf := filepath.Join(dir, "noise")
		if err := os.WriteFile(nf, noise(noiseN), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--add-section", ".noise="+nf)
	}
	if b, err := exec.Command(objcopy, append(args, lib, out)...).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, b)
	}
	if compress {
		// After the update: objcopy compresses the sections it read.
		if b, err := exec.Command(objcopy, "--compress-debug-sections=zlib", out).CombinedOutput(); err != nil {
			t.Fatalf("objcopy: %v\n%s", err, b)
		}
	}
	return out
}

// tarGz writes a .tar.gz of the named files (name, then path or bytes).
func tarGz(t *testing.T, out string, members map[string][]byte) string {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"noise", "lib.so"} {
		b, ok := members[name]
		if !ok {
			continue
		}
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNamesBudgetReal holds real DWARF to the name budget with room to
// spare: a quarter of it at most. The budgets were set from these (glibc's
// debug files, and a C++ library of several units).
func TestNamesBudgetReal(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 3 {
		src := fmt.Sprintf("#include <map>\n#include <string>\n#include <vector>\n#include <memory>\nstd::map<std::string, std::vector<int>> g%d;\nint f%d(const std::string &s) { auto p = std::make_shared<int>(1); g%d[s].push_back(*p); return g%d.size(); }\n", i, i, i, i)
		files = append(files, fixture.Build(t, "g++", dir, fmt.Sprintf("c%d.cc", i), src, fmt.Sprintf("c%d.o", i), "-g", "-O2", "-fPIC", "-c"))
	}
	lib := filepath.Join(dir, "libcxx.so")
	if b, err := exec.Command(fixture.Compiler(t, "g++"), append([]string{"-shared", "-o", lib}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, b)
	}
	paths := []string{lib}
	debugs, _ := filepath.Glob(filepath.Join(DefaultDebugDir, ".build-id", "*", "*.debug"))
	for _, d := range debugs {
		if st, err := os.Stat(d); err == nil && st.Size() > 500<<10 {
			paths = append(paths, d)
		}
	}
	if len(paths) == 1 {
		t.Logf("no debug files of over 500 KB under %s (libc6-dbg): only the C++ library", DefaultDebugDir)
	}
	for _, p := range paths {
		b := readFile(t, p)
		a, ef, err := readELF(p, bytes.NewReader(b), int64(len(b)), int64(len(b)), 0)
		if err != nil || !ef.HasDWARF() {
			t.Errorf("%s: %v", p, err)
			continue
		}
		d, secs, _, err := loadDWARF(ef, 0)
		if err != nil || secs == nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		names := newNameBudget(secs.dwarfBytes(), int64(len(b)))
		if err := typesOf(context.Background(), a, d, secs, ef.ByteOrder(), len(secs.info), names, false); err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if names.used() > names.limit/4 {
			t.Errorf("%s: the names took %d bytes, more than a quarter of the budget's %d (%s)", p, names.used(), names.limit, names.why)
		}
		t.Logf("%s: names %d bytes, %.2f of its DWARF, budget %d", filepath.Base(p), names.used(), float64(names.used())/float64(secs.dwarfBytes()), names.limit)
	}
}

// TestNamesBudgetError: a budget that ran out stays out, and says what it
// was proportional to.
func TestNamesBudgetError(t *testing.T) {
	b := newNameBudget(1000, 10)
	if !b.take(100) || b.take(namesSlack+1000) {
		t.Fatal("the budget took too much or too little")
	}
	if b.take(1) || !errors.Is(b.failed(), errManyNames) || !strings.Contains(b.failed().Error(), "32 times the 10 bytes it was read from") {
		t.Errorf("%v", b.failed())
	}
	var none *nameBudget
	if !none.take(1<<40) || none.failed() != nil {
		t.Error("a nil budget is not unlimited")
	}
}
