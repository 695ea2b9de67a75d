package abiread

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
)

// TestHostileELFIsSound checks the generator: debug/elf reads its
// compressed section back as the zeros it holds.
func TestHostileELFIsSound(t *testing.T) {
	for _, ct := range []elf.CompressionType{elf.COMPRESS_ZSTD, elf.COMPRESS_ZLIB} {
		payload := elfgen.ZstdZeros(300 << 10)
		if ct == elf.COMPRESS_ZLIB {
			payload = elfgen.ZlibZeros(300 << 10)
		}
		b := elfgen.Sections(elf.ET_EXEC, []elfgen.Section{{Name: ".debug_info", Type: elf.SHT_PROGBITS, Flags: elf.SHF_COMPRESSED,
			Data: elfgen.Compressed(ct, 300<<10, payload)}})
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Section(".debug_info").Data()
		if err != nil || len(d) != 300<<10 || bytes.Count(d, []byte{0}) != len(d) {
			t.Fatalf("%v: %d bytes, %v", ct, len(d), err)
		}
	}
}

// TestCompressedDebugBomb is #10 item 1: a .debug_info whose compression
// header claims 4 GiB, and whose zstd stream really delivers them from
// 128 KB, is refused before it is decompressed, with an error that names
// the section and the limit.
func TestCompressedDebugBomb(t *testing.T) {
	bomb := elfgen.DebugBomb(4<<30, 4<<30)
	if len(bomb) > 256<<10 {
		t.Fatalf("bomb is %d bytes", len(bomb))
	}
	path := filepath.Join(t.TempDir(), "bomb")
	if err := os.WriteFile(path, bomb, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	n := elfgen.Allocated(func() { _, err = Load(context.Background(), path, Options{NoDefaultDebugDir: true}) })
	if !errors.Is(err, ErrDebugTooLarge) || !strings.Contains(err.Error(), "bomb: section .debug_info: compressed section too large: 4294967296 bytes uncompressed") {
		t.Fatalf("Load = %v, want a too-large error naming the file and section", err)
	}
	if n > 256<<20 {
		t.Fatalf("reading the bomb allocated %d MB", n>>20)
	}
	n = elfgen.Allocated(func() { _, err = fromELF("bomb", bomb) })
	if !errors.Is(err, ErrDebugTooLarge) || n > 256<<20 {
		t.Fatalf("fromELF = %v after %d MB", err, n>>20)
	}
}

// TestCompressedDebugLimits: the limit counts every section of a file, is
// set by Options.MaxDebugSize, and a header that claims less than the
// stream holds gets only what it claims.
func TestCompressedDebugLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 8 MiB is under the default limit and over a limit of 4 MiB.
	mid := write("mid", elfgen.DebugBomb(8<<20, 8<<20))
	if _, err := Load(context.Background(), mid, Options{NoDefaultDebugDir: true, MaxDebugSize: 4 << 20}); !errors.Is(err, ErrDebugTooLarge) {
		t.Errorf("8 MiB under a 4 MiB limit: %v", err)
	}
	// Under the default limit, 8 MiB from 286 bytes of zstd is still a
	// bomb: no real section expands more than a thousandfold.
	if _, err := Load(context.Background(), mid, Options{NoDefaultDebugDir: true}); !errors.Is(err, ErrDebugTooLarge) || !strings.Contains(err.Error(), "more than 1024 times as many") {
		t.Errorf("8 MiB from 286 bytes: %v", err)
	}
	// 8 MiB from 8 KB of zlib is within both bounds: it is read (and is
	// not DWARF).
	zl := write("zlib", elfgen.Sections(elf.ET_EXEC, []elfgen.Section{
		{Name: ".debug_info", Type: elf.SHT_PROGBITS, Flags: elf.SHF_COMPRESSED, Data: elfgen.Compressed(elf.COMPRESS_ZLIB, 8<<20, elfgen.ZlibZeros(8<<20))},
		{Name: ".debug_abbrev", Type: elf.SHT_PROGBITS, Data: []byte{0}},
	}))
	if _, err := Load(context.Background(), zl, Options{NoDefaultDebugDir: true}); err == nil || errors.Is(err, ErrDebugTooLarge) {
		t.Errorf("8 MiB of zlib zeros under the default limit: want a DWARF error, got %v", err)
	}
	// The stream holds 1 GiB; the header claims 1 MiB: 1 MiB is read.
	var err error
	liar := write("liar", elfgen.DebugBomb(1<<20, 1<<30))
	n := elfgen.Allocated(func() { _, err = Load(context.Background(), liar, Options{NoDefaultDebugDir: true}) })
	if err == nil || n > 64<<20 {
		t.Errorf("a header claiming less than the stream: %v after %d MB", err, n>>20)
	}
	// A header claiming more than the stream holds: truncated.
	short := write("short", elfgen.DebugBomb(1<<20, 1000))
	if _, err := Load(context.Background(), short, Options{NoDefaultDebugDir: true}); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("a stream shorter than its header: %v", err)
	}
	// Every compressed section of a relocatable object is charged first,
	// zlib ones too.
	rel := elfgen.Sections(elf.ET_REL, []elfgen.Section{
		{Name: ".debug_info", Type: elf.SHT_PROGBITS, Flags: elf.SHF_COMPRESSED, Data: elfgen.Compressed(elf.COMPRESS_ZLIB, 3<<20, elfgen.ZlibZeros(3<<20))},
		{Name: ".debug_line", Type: elf.SHT_PROGBITS, Flags: elf.SHF_COMPRESSED, Data: elfgen.Compressed(elf.COMPRESS_ZSTD, 3<<20, elfgen.ZstdZeros(3<<20))},
		{Name: ".debug_abbrev", Type: elf.SHT_PROGBITS, Data: []byte{0}},
	})
	if _, err := Load(context.Background(), write("rel.o", rel), Options{NoDefaultDebugDir: true, MaxDebugSize: 4 << 20}); !errors.Is(err, ErrDebugTooLarge) || !strings.Contains(err.Error(), ".debug_line") {
		t.Errorf("two 3 MiB sections under a 4 MiB limit: %v", err)
	}
	// GNU .zdebug sections, with their own "ZLIB" header, count too.
	zd := append([]byte("ZLIB\x00\x00\x00\x01\x00\x00\x00\x00"), elfgen.ZlibZeros(1000)...)
	zrel := elfgen.Sections(elf.ET_REL, []elfgen.Section{{Name: ".zdebug_info", Type: elf.SHT_PROGBITS, Data: zd}})
	if _, err := Load(context.Background(), write("z.o", zrel), Options{NoDefaultDebugDir: true}); err != nil && !errors.Is(err, ErrDebugTooLarge) {
		t.Logf(".zdebug_info: %v", err)
	}
	if err := checkDebugSizes(mustELF(t, zrel), elfx.NewBudget(1<<20)); !errors.Is(err, ErrDebugTooLarge) {
		t.Errorf(".zdebug_info claiming 4 GiB: %v", err)
	}
}

func mustELF(t *testing.T, b []byte) *elfx.File {
	t.Helper()
	f, err := elfx.NewHeaders(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// noBlock runs fn and fails the test if it has not returned after a
// generous while: a FIFO opened for reading blocks until a writer comes.
func noBlock(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// TestSpecialFiles is #10 item 5: devices and FIFOs are refused, never
// read, and a FIFO never blocks the open.
func TestSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, p := range []string{"/dev/zero", "/dev/null", fifo} {
		noBlock(t, p, func() {
			for name, load := range map[string]func(string) error{
				"Load": func(p string) error { _, err := Load(context.Background(), p, Options{}); return err },
			} {
				if _, err := os.Stat(p); err != nil {
					continue
				}
				if err := load(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("%s(%s) = %v, want a not-a-regular-file error", name, p, err)
				}
			}
		})
	}
}

// TestDebugLinkFIFO: a .gnu_debuglink or a build ID that names a FIFO is
// passed over; the ABI is read without debug info.
func TestDebugLinkFIFO(t *testing.T) {
	dir := t.TempDir()
	id := []byte{0xab, 0xcd, 0xef, 0x01}
	note := []byte{4, 0, 0, 0, byte(len(id)), 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0}
	note = append(note, id...)
	bin := elfgen.Sections(elf.ET_EXEC, []elfgen.Section{
		{Name: ".note.gnu.build-id", Type: elf.SHT_NOTE, Flags: elf.SHF_ALLOC, Data: note},
		{Name: ".gnu_debuglink", Type: elf.SHT_PROGBITS, Data: []byte("app.debug\x00\x00\x00\x00\x00\x00\x00")},
	})
	p := filepath.Join(dir, "app")
	if err := os.WriteFile(p, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	dbg := filepath.Join(dir, "dbg")
	os.MkdirAll(filepath.Join(dbg, ".build-id", "ab"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".debug"), 0o755)
	for _, f := range []string{filepath.Join(dir, "app.debug"), filepath.Join(dir, ".debug", "app.debug"), filepath.Join(dbg, ".build-id", "ab", "cdef01.debug")} {
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	noBlock(t, "a debug link to a FIFO", func() {
		a, err := Load(context.Background(), p, Options{DebugDirs: []string{dbg}, NoDefaultDebugDir: true})
		if err != nil || a.DebugInfo != abi.DebugNone {
			t.Errorf("Load = %+v, %v; want symbols only", a, err)
		}
	})
}

// FuzzLoadDWARF drives the bounded DWARF path with a small limit, seeded
// with compressed sections of both kinds.
func FuzzLoadDWARF(f *testing.F) {
	f.Add(elfgen.DebugBomb(1<<20, 1<<20))
	f.Add(elfgen.DebugBomb(4<<30, 1<<20))
	f.Add(elfgen.Sections(elf.ET_REL, []elfgen.Section{
		{Name: ".debug_info", Type: elf.SHT_PROGBITS, Flags: elf.SHF_COMPRESSED, Data: elfgen.Compressed(elf.COMPRESS_ZLIB, 1000, elfgen.ZlibZeros(1000))},
		{Name: ".debug_abbrev", Type: elf.SHT_PROGBITS, Data: []byte{1, 0x11, 0, 0, 0}},
	}))
	if b, err := os.ReadFile("/lib/x86_64-linux-gnu/libdl.so.2"); err == nil && len(b) < 1<<20 {
		f.Add(b)
	}
	// Object files, whose debug sections elfx relocates (RELA and REL).
	for i, cc := range []string{"gcc", "i686-linux-gnu-gcc"} {
		if !fixture.Have(cc) {
			continue
		}
		obj := fixture.Build(f, cc, f.TempDir(), "r.c", relocSrc, fmt.Sprintf("r%d.o", i), "-c", "-g")
		if b, err := os.ReadFile(obj); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := openELF(bytes.NewReader(data), int64(len(data)), 1<<20)
		if err != nil {
			return
		}
		a := &abi.ABI{Schema: abi.Schema, Types: map[string]*abi.Type{}, Symbols: []abi.Symbol{}}
		addTypesFrom(context.Background(), "fuzz", a, ef, int64(len(data)), 1<<20, nil, ef.Type == elf.ET_REL)
	})
}

// TestCompressedNameTable: elf.NewFile decompresses a compressed section
// name table whole, before any caller can look; such files are refused
// first (no tool writes them), and a compressed .dynsym or .dynstr counts
// against the limit like debug info.
func TestCompressedNameTable(t *testing.T) {
	b := elfgen.Sections(elf.ET_EXEC, []elfgen.Section{{Name: ".x", Type: elf.SHT_PROGBITS, Data: []byte{1}}})
	le := binary.LittleEndian
	shoff, shnum := le.Uint64(b[40:]), uint64(le.Uint16(b[60:]))
	payload := elfgen.Compressed(elf.COMPRESS_ZSTD, 2<<30, elfgen.ZstdZeros(2<<30))
	off := len(b)
	b = append(b, payload...)
	h := b[shoff+64*(shnum-1):]
	le.PutUint64(h[8:], uint64(elf.SHF_COMPRESSED))
	le.PutUint64(h[24:], uint64(off))
	le.PutUint64(h[32:], uint64(len(payload)))
	var err error
	n := elfgen.Allocated(func() { _, err = fromELF("names", b) })
	if err == nil || !strings.Contains(err.Error(), "names: the section name table is compressed") || n > 256<<20 {
		t.Fatalf("fromELF = %v after %d MB", err, n>>20)
	}

	dynstr := elfgen.Sections(elf.ET_EXEC, []elfgen.Section{
		{Name: ".dynstr", Type: elf.SHT_STRTAB, Flags: elf.SHF_COMPRESSED, Data: elfgen.Compressed(elf.COMPRESS_ZSTD, 1<<30, elfgen.ZstdZeros(1<<30))},
	})
	n = elfgen.Allocated(func() { _, err = fromELF("dynstr", dynstr) })
	if !errors.Is(err, ErrDebugTooLarge) || !strings.Contains(err.Error(), "section .dynstr: compressed section too large: 1073741824 bytes") || n > 256<<20 {
		t.Fatalf("fromELF = %v after %d MB", err, n>>20)
	}
}

// TestRealCompressedDebug: debug info compressed by the toolchain (gcc
// -gz=zlib, objcopy --compress-debug-sections=zstd) passes the bounds and
// its types are read.
func TestRealCompressedDebug(t *testing.T) {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "l.c")
	os.WriteFile(src, []byte("struct s { int a; long b; };\nint f(struct s *p) { return p->a; }\n"), 0o644)
	zlib := filepath.Join(dir, "zlib.so")
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-g", "-gz=zlib", "-o", zlib, src).CombinedOutput(); err != nil {
		t.Skipf("gcc -gz=zlib: %v\n%s", err, out)
	}
	libs := []string{zlib}
	zstd := filepath.Join(dir, "zstd.so")
	if exec.Command("objcopy", "--compress-debug-sections=zstd", zlib, zstd).Run() == nil {
		libs = append(libs, zstd)
	} else {
		t.Log("objcopy cannot compress with zstd: zlib only")
	}
	for _, lib := range libs {
		ef := mustELFFile(t, lib)
		if ef.Section(".debug_info").Flags&elf.SHF_COMPRESSED == 0 {
			t.Fatalf("%s: .debug_info is not compressed", lib)
		}
		a, err := Load(context.Background(), lib, Options{NoDefaultDebugDir: true})
		if err != nil || a.DebugInfo != abi.DebugDWARF || a.Types["struct s"] == nil || a.Types["struct s"].Size != 16 {
			t.Fatalf("%s: %v, %+v", lib, err, a)
		}
	}
}

func mustELFFile(t *testing.T, p string) *elf.File {
	t.Helper()
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
