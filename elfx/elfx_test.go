package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// systemFiles are real binaries present on any Debian-like system.
func systemFiles(t testing.TB) []string {
	var out []string
	for _, glob := range []string{
		"/usr/bin/ls", "/usr/bin/true", "/usr/bin/gcc",
		"/lib/*-linux-gnu/libc.so.6", "/usr/lib/*-linux-gnu/libstdc++.so.6",
		"/usr/lib/*-linux-gnu/libm.so.6", "/lib64/ld-linux-x86-64.so.2",
	} {
		m, _ := filepath.Glob(glob)
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Skip("no system binaries found under /usr/bin or /lib")
	}
	return out
}

// TestAgainstDebugElf checks elfx against the standard library's reader,
// which reads whole section tables, on real system files.
func TestAgainstDebugElf(t *testing.T) {
	for _, path := range systemFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			compareWithStd(t, path)
		})
	}
}

func compareWithStd(t *testing.T, path string) {
	t.Helper()
	std, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer std.Close()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != std.Machine || f.Class != std.Class || f.Type != std.Type {
		t.Errorf("header: got %v %v %v, want %v %v %v", f.Machine, f.Class, f.Type, std.Machine, std.Class, std.Type)
	}
	libs, _ := std.ImportedLibraries()
	if f.Dynamic == nil {
		if len(libs) > 0 {
			t.Fatalf("no dynamic section, but debug/elf sees %v", libs)
		}
		return
	}
	if !slices.Equal(f.Dynamic.Needed, libs) {
		t.Errorf("needed = %v, want %v", f.Dynamic.Needed, libs)
	}
	stdNeeds, _ := std.DynamicVersionNeeds()
	needs, err := f.VersionNeeds()
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, n := range needs {
		for _, v := range n.Versions {
			got = append(got, n.File+" "+v.Name)
		}
	}
	for _, n := range stdNeeds {
		for _, v := range n.Needs {
			want = append(want, n.Name+" "+v.Dep)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("version needs:\n got %v\nwant %v", got, want)
	}
	stdSyms, err := std.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	// debug/elf drops the null symbol at index 0.
	if len(syms) != len(stdSyms)+1 {
		t.Fatalf("%d symbols, want %d", len(syms)-1, len(stdSyms))
	}
	for i, ss := range stdSyms {
		s := syms[i+1]
		if s.Name != ss.Name || s.Value != ss.Value || s.Section != ss.Section || s.Version != ss.Version || s.Library != ss.Library {
			t.Fatalf("symbol %d: got %s %#x %v %q %q, want %s %#x %v %q %q", i+1,
				s.Name, s.Value, s.Section, s.Version, s.Library, ss.Name, ss.Value, ss.Section, ss.Version, ss.Library)
		}
	}
	rels, err := f.Relocs()
	if err != nil {
		t.Fatal(err)
	}
	var relBytes uint64
	for _, sec := range std.Sections {
		if (sec.Type == elf.SHT_RELA || sec.Type == elf.SHT_REL) && sec.Flags&elf.SHF_ALLOC != 0 {
			relBytes += sec.Size / sec.Entsize
		}
	}
	if uint64(len(rels)) != relBytes {
		t.Errorf("%d relocations, sections hold %d", len(rels), relBytes)
	}
	for _, r := range rels {
		if int(r.Sym) >= len(syms) {
			t.Fatalf("relocation symbol %d past dynsym (%d)", r.Sym, len(syms))
		}
	}
}

const fixtureC = `
#include <string.h>
#include <stdio.h>
__asm__(".symver memcpy,memcpy@GLIBC_2.2.5");
int copy(char *d, const char *s, size_t n) { memcpy(d, s, n); return puts(d); }
`

// TestCompiledFixtures reads freshly compiled shared libraries for two
// architectures, both byte orders' code paths being the same.
func TestCompiledFixtures(t *testing.T) {
	for _, tc := range []struct {
		cc, arch string
		src      string
	}{
		{"gcc", runtime.GOARCH, fixtureC},
		{"aarch64-linux-gnu-gcc", "arm64", strings.Replace(fixtureC, "GLIBC_2.2.5", "GLIBC_2.17", 1)},
		// ELF32, and big-endian ELF64.
		{"i686-linux-gnu-gcc", "386", strings.Replace(fixtureC, "GLIBC_2.2.5", "GLIBC_2.0", 1)},
		{"s390x-linux-gnu-gcc", "s390x", strings.Replace(fixtureC, "GLIBC_2.2.5", "GLIBC_2.2", 1)},
	} {
		t.Run(tc.cc, func(t *testing.T) {
			dir := t.TempDir()
			if tc.cc == "gcc" && runtime.GOARCH != "amd64" {
				t.Skip("the x86_64 fixture pins GLIBC_2.2.5, which only x86_64 has")
			}
			lib := fixture.Build(t, tc.cc, dir, "lib.c", tc.src, "libfix.so", "-shared", "-fPIC", "-Wl,-soname,libfix.so.1", "-Wl,-rpath,$ORIGIN/../lib")
			compareWithStd(t, lib)
			f, err := Open(lib)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Dynamic.Soname != "libfix.so.1" || f.Dynamic.Runpath != "$ORIGIN/../lib" {
				t.Errorf("soname %q runpath %q", f.Dynamic.Soname, f.Dynamic.Runpath)
			}
			want := map[string]string{"arm64": "aarch64", "amd64": "x86_64", "386": "i386", "s390x": "s390x"}[tc.arch]
			if f.Arch() != want {
				t.Errorf("Arch() = %q, want %q", f.Arch(), want)
			}
			if f.Reads() > 6 {
				t.Errorf("opening and reading versions took %d reads; the design is a handful", f.Reads())
			}
		})
	}
}

// smallELF returns a real, small dynamically linked file to damage.
func smallELF(t testing.TB) []byte {
	for _, p := range []string{"/usr/bin/true", "/bin/true"} {
		if b, err := os.ReadFile(p); err == nil && IsELF(b) {
			return b
		}
	}
	t.Skip("no /usr/bin/true to damage")
	return nil
}

// exercise calls every reader method; it must never panic.
func exercise(b []byte) error {
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	var errs []error
	_, e1 := f.VersionNeeds()
	_, e2 := f.VersionDefs()
	_, e3 := f.Symbols()
	_, e4 := f.Relocs()
	_, e5 := f.Sections()
	_, e6 := f.SymbolRelocs()
	errs = append(errs, e1, e2, e3, e4, e5, e6)
	f.Arch()
	f.BuildID()
	if l := f.DebugLink(); strings.ContainsRune(l, '/') || l == ".." {
		panic("DebugLink " + l + " is a path") // an invariant: the fuzzer reports it
	}
	return errors.Join(errs...)
}

// TestTruncated cuts a real file at every header and table boundary (and
// every 61 bytes in between): each cut is an error or a clean read.
func TestTruncated(t *testing.T) {
	b := smallELF(t)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	cuts := map[int]bool{0: true, 3: true, 4: true, 16: true, 52: true, 63: true, 64: true}
	for _, p := range f.Progs {
		cuts[int(p.Off)] = true
		cuts[int(p.Off+p.Filesz)-1] = true
	}
	for i := int64(0); i < f.phnum; i++ {
		cuts[int(f.phoff+i*f.phentsz)] = true
	}
	for _, tag := range []elf.DynTag{elf.DT_VERNEED, elf.DT_STRTAB, elf.DT_SYMTAB, elf.DT_VERSYM, elf.DT_GNU_HASH, elf.DT_RELA, elf.DT_JMPREL} {
		if off, ok, _ := f.tableOffset(tag); ok {
			cuts[int(off)] = true
			cuts[int(off)+8] = true
		}
	}
	for i := 0; i < len(b); i += 61 {
		cuts[i] = true
	}
	for cut := range cuts {
		if cut < 0 || cut > len(b) {
			continue
		}
		err := exercise(b[:cut])
		if cut < 64 && err == nil {
			t.Errorf("cut at %d: no error from a file shorter than its header", cut)
		}
	}
	if err := exercise(b); err != nil {
		t.Fatalf("whole file: %v", err)
	}
}

// TestHostile sets header fields to absurd values. Each must give an
// error, never a panic or a huge allocation.
func TestHostile(t *testing.T) {
	orig := smallELF(t)
	f, err := NewFile(bytes.NewReader(orig), int64(len(orig)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != elf.ELFCLASS64 {
		t.Skip("the hostile cases patch ELF64 offsets")
	}
	bo := f.ByteOrder()
	dynOff := int64(f.Prog(elf.PT_DYNAMIC).Off)
	// patchDyn overwrites the value of the first entry with tag.
	patchDyn := func(b []byte, tag elf.DynTag, val uint64) {
		for off := dynOff; off+16 <= int64(len(b)); off += 16 {
			if elf.DynTag(bo.Uint64(b[off:])) == tag {
				bo.PutUint64(b[off+8:], val)
				return
			}
		}
		t.Fatalf("no %v in the dynamic section", tag)
	}
	verneed, _, _ := f.tableOffset(elf.DT_VERNEED)
	cases := map[string]func(b []byte){
		"phoff past EOF":   func(b []byte) { bo.PutUint64(b[32:], uint64(len(b))+100) },
		"phnum 65535":      func(b []byte) { bo.PutUint16(b[56:], 0xfffe) },
		"phentsize 0":      func(b []byte) { bo.PutUint16(b[54:], 0) },
		"dynamic past EOF": func(b []byte) { bo.PutUint64(b[f.phoff+int64(indexOf(f, elf.PT_DYNAMIC))*56+8:], 1<<40) },
		"2^32 verneeds":    func(b []byte) { patchDyn(b, elf.DT_VERNEEDNUM, 1<<32) },
		"verneed outside":  func(b []byte) { patchDyn(b, elf.DT_VERNEED, 1<<50) },
		"verneed next wraps": func(b []byte) {
			// vn_next is unsigned: a "loop back" is a jump past the end.
			patchDyn(b, elf.DT_VERNEEDNUM, 1000)
			bo.PutUint32(b[verneed+12:], 0xfffffff0)
		},
		"verneed aux outside": func(b []byte) { bo.PutUint32(b[verneed+8:], 0x7fffffff) },
		"zero-size strtab":    func(b []byte) { patchDyn(b, elf.DT_STRSZ, 0) },
		"huge strtab":         func(b []byte) { patchDyn(b, elf.DT_STRSZ, 1<<62) },
		"gnu hash 2^32 buckets": func(b []byte) {
			off, _, _ := f.tableOffset(elf.DT_GNU_HASH)
			bo.PutUint32(b[off:], 0xffffffff)
		},
		"relocations outside": func(b []byte) { patchDyn(b, elf.DT_RELASZ, 1<<40) },
		"2^32 symbols": func(b []byte) {
			// Every bucket points at the last possible symbol, so the
			// chain walk would claim 2^32 entries.
			off, _, _ := f.tableOffset(elf.DT_GNU_HASH)
			nb, bloom := bo.Uint32(b[off:]), bo.Uint32(b[off+8:])
			bo.PutUint32(b[off+4:], 0)
			for i := uint32(0); i < nb; i++ {
				bo.PutUint32(b[off+16+int64(bloom)*8+int64(i)*4:], 0xffffffff)
			}
		},
	}
	for name, patch := range cases {
		t.Run(name, func(t *testing.T) {
			b := append([]byte(nil), orig...)
			patch(b)
			if err := exercise(b); err == nil {
				t.Fatal("no error")
			} else if !strings.Contains(err.Error(), "malformed ELF") {
				t.Fatalf("error %q does not say the ELF is malformed", err)
			}
		})
	}
}

func indexOf(f *File, t elf.ProgType) int {
	for i, p := range f.Progs {
		if p.Type == t {
			return i
		}
	}
	return -1
}

func TestNotELF(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("#!/bin/sh\n"), []byte("\x7fEL")} {
		if _, err := NewFile(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrNotELF) {
			t.Errorf("%q: err = %v, want ErrNotELF", b, err)
		}
	}
	// The magic alone is ELF, but broken.
	b := []byte("\x7fELF\x02\x01\x01")
	if _, err := NewFile(bytes.NewReader(b), int64(len(b))); err == nil || errors.Is(err, ErrNotELF) {
		t.Errorf("truncated ELF: err = %v, want a FormatError", err)
	}
}

func TestOpenRefusesFIFO(t *testing.T) {
	if _, err := Open("/dev/null"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Open(/dev/null) = %v, want a not-a-regular-file error", err)
	}
}

// TestLimitTables: a file held to fewer bytes than its tables refuses to
// read them, naming the limit and where it comes from; one held to its
// own size reads as before.
func TestLimitTables(t *testing.T) {
	b := smallELF(t)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	f.LimitTables(16, "a test's 16 bytes")
	if _, err := f.Symbols(); !errors.Is(err, ErrHoldLimit) || !strings.Contains(err.Error(), "(a test's 16 bytes)") {
		t.Errorf("held to 16 bytes: %v", err)
	}
	f, _ = NewFile(bytes.NewReader(b), int64(len(b)))
	f.LimitTables(int64(len(b)), "its size")
	if syms, err := f.Symbols(); err != nil || len(syms) == 0 {
		t.Errorf("held to its size: %d symbols, %v", len(syms), err)
	}
}

// TestLongDynamicString: a DT_NEEDED or DT_SONAME that names a string
// longer than maxCString (here a 100 KiB symbol name, which the test
// points them at) is an error, read or not through the whole table; a
// symbol may keep its long name. Pointed at a 200 MiB name in a 205 KB
// .tar.gz, scan took 676 MB.
func TestLongDynamicString(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("A", 100<<10)
	src := ".text\n.globl " + name + "\n.type " + name + ",@function\n" + name + ":\n ret\n.section .note.GNU-stack,\"\",@progbits\n"
	lib := fixture.Build(t, "gcc", dir, "long.s", src, "liblong.so", "-shared", "-nostdlib", "-Wl,-soname,libx.so")
	b, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := ef.DynamicSymbols()
	dynstr, dyn := ef.Section(".dynstr"), ef.Section(".dynamic")
	var off uint64
	for _, s := range syms {
		if s.Name == name {
			data, _ := dynstr.Data()
			off = uint64(bytes.Index(data, []byte(name)))
		}
	}
	if off == 0 || dyn == nil {
		t.Fatal("no long symbol name in .dynstr")
	}
	orig := slices.Clone(b)
	patched := 0
	for at := dyn.Offset; at+16 <= dyn.Offset+dyn.Size; at += 16 {
		if tag := elf.DynTag(binary.LittleEndian.Uint64(b[at:])); tag == elf.DT_SONAME {
			binary.LittleEndian.PutUint64(b[at+8:], off)
			patched++
		}
	}
	if patched != 1 {
		t.Fatalf("%d DT_SONAME entries", patched)
	}
	if _, err := NewFile(bytes.NewReader(b), int64(len(b))); err == nil || !strings.Contains(err.Error(), "string longer than 65536 bytes") {
		t.Errorf("a 100 KiB soname: %v", err)
	}
	f, err := NewFile(bytes.NewReader(orig), int64(len(orig)))
	if err != nil {
		t.Fatal(err)
	}
	if syms, err := f.Symbols(); err != nil || !slices.ContainsFunc(syms, func(s Symbol) bool { return s.Name == name }) {
		t.Errorf("the symbol's own long name: %v", err)
	}
}
