package abiread_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abi/abitext"
	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
)

// compile builds testdata/fix.c as a shared library with cc and extra
// flags, skipping when cc is absent.
func compile(t testing.TB, cc string, flags ...string) string {
	t.Helper()
	if !fixture.Have(cc) {
		t.Skipf("%s not installed", cc)
	}
	out := filepath.Join(t.TempDir(), "libfix.so")
	args := append([]string{"-shared", "-fPIC", "-O0", "-o", out, filepath.Join("testdata", "fix.c")}, flags...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	return out
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if !fixture.Have(name) {
		t.Skipf("%s not installed", name)
	}
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
}

func read(t testing.TB, path string, dirs ...string) *abi.ABI {
	t.Helper()
	a, err := abiread.Load(context.Background(), path, abiread.Options{DebugDirs: dirs, NoDefaultDebugDir: true})
	if err != nil {
		t.Fatal(err)
	}
	// What a reader writes is a valid model, whatever the input.
	if err := a.Validate(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

func symbol(a *abi.ABI, name string) *abi.Symbol {
	for i := range a.Symbols {
		if a.Symbols[i].Name == name {
			return &a.Symbols[i]
		}
	}
	return nil
}

func TestELFTypes(t *testing.T) {
	for _, tc := range []struct{ cc, dwarf string }{
		{"gcc", "-gdwarf-5"}, {"gcc", "-gdwarf-4"}, {"gcc", "-gdwarf-2"}, {"aarch64-linux-gnu-gcc", "-g"},
		// Big-endian, where DWARF 2/3 bit offsets count from the other end.
		{"s390x-linux-gnu-gcc", "-gdwarf-4"}, {"s390x-linux-gnu-gcc", "-gdwarf-2"},
	} {
		t.Run(tc.cc+tc.dwarf, func(t *testing.T) {
			a := read(t, compile(t, tc.cc, tc.dwarf))
			wantSig := map[string]string{
				"apply":      "int(struct list *, int (*)(int, ...), union number, enum mode)",
				"table_size": "long unsigned int(const struct table *)",
				"head":       "struct list *",
				"names":      "const char *const[3]",
			}
			for name, want := range wantSig {
				s := symbol(a, name)
				if s == nil || s.Type == nil {
					t.Errorf("%s: no symbol or no type", name)
					continue
				}
				if got := abi.Spell(s.Type); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			tab := a.Types["struct table"]
			if tab == nil || len(tab.Members) != 5 {
				t.Fatalf("struct table = %+v", tab)
			}
			bits := tab.Members[1].Type.Members
			if bits[1].Name != "hi" || bits[1].BitOffset != 4 || bits[1].BitSize != 12 {
				t.Errorf("bit-field hi = %+v", bits[1])
			}
			if m := tab.Members[2]; m.Name != "" || m.Type.Kind != abi.Union {
				t.Errorf("anonymous union member = %+v", m)
			}
			if m := tab.Members[4]; m.Type.Kind != abi.Array || m.Type.Count != -1 || m.Type.Size != 0 {
				t.Errorf("flexible array = %+v", m.Type)
			}
			if e := a.Types["enum mode"]; e == nil || e.Enumerators[2].Value != -1 {
				t.Errorf("enum mode = %+v", e)
			}
			if l := a.Types["struct list"]; l == nil || abi.Spell(l.Members[0].Type) != "struct list *" {
				t.Errorf("recursive struct list = %+v", l)
			}
		})
	}
}

// TestDeterministic reads the same library twice: same bytes, and the
// fingerprint is what the canonical JSON hashes to.
func TestDeterministic(t *testing.T) {
	lib := compile(t, "gcc", "-g")
	a, b := read(t, lib), read(t, lib)
	if !bytes.Equal(a.Canonical(), b.Canonical()) {
		t.Fatal("two reads of one file differ")
	}
	if !strings.HasPrefix(a.Fingerprint(), "sha256:") || len(a.Fingerprint()) != 71 {
		t.Errorf("fingerprint %q", a.Fingerprint())
	}
}

func TestSeparateDebugInfo(t *testing.T) {
	lib := compile(t, "gcc", "-g", "-Wl,--build-id")
	full := read(t, lib)
	dir := t.TempDir()
	dbg := filepath.Join(dir, "libfix.debug")
	run(t, "objcopy", "--only-keep-debug", lib, dbg)
	run(t, "objcopy", "--strip-debug", lib)

	stripped := read(t, lib)
	if stripped.DebugInfo != abi.DebugNone || len(stripped.Types) != 0 || symbol(stripped, "apply") == nil {
		t.Fatalf("stripped: debug_info=%s types=%d", stripped.DebugInfo, len(stripped.Types))
	}

	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	id := buildIDHex(t, f)
	f.Close()
	bid := filepath.Join(dir, "root", ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(bid), 0o755)
	if err := os.Link(dbg, bid); err != nil {
		t.Fatal(err)
	}
	byID := read(t, lib, filepath.Join(dir, "root"))
	if byID.DebugFile != bid || byID.Fingerprint() != full.Fingerprint() {
		t.Errorf("by build ID: debug file %q, same ABI %v", byID.DebugFile, byID.Fingerprint() == full.Fingerprint())
	}

	// .gnu_debuglink, found in the .debug directory next to the file.
	os.MkdirAll(filepath.Join(filepath.Dir(lib), ".debug"), 0o755)
	run(t, "objcopy", "--add-gnu-debuglink="+dbg, lib)
	if err := os.Rename(dbg, filepath.Join(filepath.Dir(lib), ".debug", "libfix.debug")); err != nil {
		t.Fatal(err)
	}
	byLink := read(t, lib)
	if byLink.DebugInfo != abi.DebugDWARF || byLink.Fingerprint() != full.Fingerprint() {
		t.Errorf("by debuglink: %s %s", byLink.DebugInfo, byLink.DebugFile)
	}
}

func buildIDHex(t *testing.T, f *elf.File) string {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		t.Skip("linker wrote no build ID")
	}
	b, _ := s.Data()
	const hexdigits = "0123456789abcdef"
	var out []byte
	for _, c := range b[16:] {
		out = append(out, hexdigits[c>>4], hexdigits[c&15])
	}
	return string(out)
}

// TestBadInput: every malformed file is an error that names the file.
func TestBadInput(t *testing.T) {
	lib := compile(t, "gcc", "-g")
	data, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string][]byte{
		"empty":     nil,
		"text":      []byte("hello"),
		"json-bad":  []byte(`{"schema": 1, "symbols": 3}`),
		"json-old":  []byte(`{"schema": 99}`),
		"truncated": data[:len(data)/3],
		"header":    data[:64],
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		if _, err := abiread.Load(context.Background(), p, abiread.Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
	}
}

// TestSpecialFiles: a FIFO or a device is refused, not read (a FIFO would
// block, /dev/zero would never end).
func TestSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, p := range []string{fifo, "/dev/zero", t.TempDir()} {
		if _, err := abiread.Load(context.Background(), p, abiread.Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want a refusal naming it", p, err)
		}
	}
}

func TestHeaders(t *testing.T) {
	for _, arch := range []string{"", "aarch64"} {
		t.Run("arch="+arch, func(t *testing.T) {
			cc := "gcc"
			if arch != "" {
				cc = arch + "-linux-gnu-gcc"
			}
			if !fixture.Have(cc) {
				t.Skipf("%s not installed", cc)
			}
			a, err := abiread.Headers(context.Background(), abiread.HeaderOptions{
				Includes: []string{"testdata/include"}, Headers: []string{"fix.h"},
				Types: []string{"NVOS_*", "struct list", "mode"}, Consts: []string{"FIX_IOCTL_ALLOC", "FIX_VERSION", "MODE_B"},
				Arch: arch,
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Validate(); err != nil {
				t.Error(err)
			}
			if want := []string{"NVOS_OTHER", "NVOS_PARAMS", "enum mode", "struct list"}; !slices.Equal(a.Roots, want) {
				t.Errorf("roots = %v, want %v", a.Roots, want)
			}
			// Nested types are followed.
			for k, want := range map[string]bool{"struct table": true, "handle_t": true, "union number": false} {
				if _, ok := a.Types[k]; ok != want {
					t.Errorf("type %s present=%v, want %v", k, ok, want)
				}
			}
			p := a.Types["NVOS_PARAMS"].Elem
			if p.Members[1].Name != "hObjectNew" || p.Members[1].Offset != 4 || p.Size != 16 {
				t.Errorf("NVOS_PARAMS = %+v", p)
			}
			want := []abi.Constant{{Name: "FIX_IOCTL_ALLOC", Value: 0xc020462b}, {Name: "FIX_VERSION", Value: 7}, {Name: "MODE_B", Value: 4}}
			if !slices.Equal(a.Constants, want) {
				t.Errorf("constants = %v, want %v", a.Constants, want)
			}
		})
	}
}

func TestHeadersErrors(t *testing.T) {
	_, err := abiread.Headers(context.Background(), abiread.HeaderOptions{CC: "no-such-cc-abifloor", Headers: []string{"x.h"}, Types: []string{"x"}})
	if !errors.Is(err, abiread.ErrNoCompiler) || !strings.Contains(err.Error(), "no-such-cc-abifloor") {
		t.Errorf("missing compiler: %v", err)
	}
	fixture.Need(t, "gcc")
	_, err = abiread.Headers(context.Background(), abiread.HeaderOptions{CC: "gcc", Includes: []string{"testdata/include"}, Headers: []string{"fix.h"}, Types: []string{"nothing_*"}})
	if err == nil || !strings.Contains(err.Error(), `no type matches "nothing_*"`) {
		t.Errorf("no match: %v", err)
	}
	_, err = abiread.Headers(context.Background(), abiread.HeaderOptions{CC: "gcc", Headers: []string{"missing.h"}, Types: []string{"x"}})
	if err == nil || !strings.Contains(err.Error(), "missing.h") {
		t.Errorf("missing header: %v", err)
	}
}

// TestSharedTypeBomb: unnamed function types whose two parameters are the
// previous level's type, nested 40 levels. The DWARF is a few KB and
// shares each level, but written as a tree it has 2^40 nodes. Reading,
// fingerprinting, JSON and text must stay bounded by the file's size.
func TestSharedTypeBomb(t *testing.T) {
	fixture.Need(t, "gcc")
	var src strings.Builder
	src.WriteString("void (*p0)(int);\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&src, "__typeof__(void (*)(__typeof__(p%d), __typeof__(p%d))) p%d;\n", i-1, i-1, i)
	}
	dir := t.TempDir()
	c, lib := filepath.Join(dir, "bomb.c"), filepath.Join(dir, "libbomb.so")
	os.WriteFile(c, []byte(src.String()), 0o644)
	run(t, "gcc", "-shared", "-fPIC", "-g", "-O0", "-o", lib, c)
	var a *abi.ABI
	var js []byte
	var text bytes.Buffer
	alloc := elfgen.Allocated(func() {
		a = read(t, lib)
		var err error
		if js, err = json.Marshal(a); err != nil {
			t.Fatal(err)
		}
		a.TypeFingerprints()
		if err := abitext.WriteText(&text, a); err != nil {
			t.Fatal(err)
		}
		for _, s := range a.Symbols {
			abi.Spell(s.Type)
			s.Type.Refs()
		}
	})
	if alloc > 256<<20 {
		t.Errorf("allocated %d MB", alloc>>20)
	}
	if len(js) > 16<<20 || text.Len() > 16<<20 {
		t.Errorf("JSON %d bytes, text %d bytes", len(js), text.Len())
	}
	if p1 := symbol(a, "p1"); p1 == nil || abi.Spell(p1.Type) != "void (*)(void (*)(int), void (*)(int))" {
		t.Errorf("p1 = %+v", p1)
	}
}

// TestSpellLimit: a graph built in Go that shares nodes 40 levels deep is
// spelled within the limit, and Refs visits each node once.
func TestSpellLimit(t *testing.T) {
	ty := &abi.Type{Ref: "int"}
	for range 40 {
		ty = &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Kind: abi.Func, Elem: &abi.Type{Kind: abi.Void}, Params: []*abi.Type{ty, ty}}}
	}
	if s := abi.Spell(ty); len(s) > 1<<20 || !strings.Contains(s, "...") {
		t.Errorf("spelling of %d bytes, cut: %v", len(s), strings.Contains(s, "..."))
	}
	if r := ty.Refs(); !slices.Equal(r, []string{"int"}) {
		t.Errorf("refs = %v", r)
	}
}
