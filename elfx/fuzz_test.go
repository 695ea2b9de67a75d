package elfx

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/run"
)

// FuzzFile feeds arbitrary bytes to every reader method. Seeds are real
// binaries, so mutations start from well-formed tables.
func FuzzFile(f *testing.F) {
	for _, p := range []string{"/usr/bin/true", "/bin/true", "/usr/lib/x86_64-linux-gnu/libdl.so.2", "/usr/lib/aarch64-linux-gnu/libdl.so.2", "/usr/aarch64-linux-gnu/lib/libdl.so.2"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x01\x02\x01"))
	f.Add(elfgen.NameBomb(64, 256)) // names sharing one string

	f.Fuzz(func(t *testing.T, b []byte) {
		exercise(b)
		// HasUnversionedRefs finds what Symbols shows.
		if f, err := NewFile(bytes.NewReader(b), int64(len(b))); err == nil {
			has, herr := f.HasUnversionedRefs()
			if syms, err := f.Symbols(); err == nil && herr == nil && !has {
				for i, s := range syms {
					if i > 0 && s.Name != "" && s.Undefined() && s.Bind != elf.STB_WEAK && s.Bind != elf.STB_LOCAL && s.VersionIndex <= 1 {
						t.Fatalf("symbol %d %q is an unversioned reference HasUnversionedRefs missed", i, s.Name)
					}
				}
			}
		}
		// Again held to half the input: the limit holds whatever the
		// tables claim.
		if f, err := NewFile(bytes.NewReader(b), int64(len(b))); err == nil {
			f.LimitTables(int64(len(b))/2+1, "fuzz")
			f.VersionNeeds()
			f.Symbols()
			f.Relocs()
			f.SymbolRelocs()
			if f.rd.held > f.rd.hold {
				t.Fatalf("held %d bytes of a limit of %d", f.rd.held, f.rd.hold)
			}
		}
	})
}

// FuzzDebugData reads every section of arbitrary bytes as a debug reader
// does (decompressed within a small budget, relocated for an object
// file). Seeds are object files compiled at fuzz time, whose debug
// sections carry RELA (x86_64, aarch64) and REL (i386) relocations, one
// compressed by the compiler, and compressed-section bombs.
func FuzzDebugData(f *testing.F) {
	src := "struct s { struct s *next; const char *name; long v[3]; };\nint g(struct s *p) { return p->name[0] + (int)p->v[1]; }\n"
	dir := f.TempDir()
	for i, c := range [][]string{{"gcc", "-gdwarf-4"}, {"gcc", "-gdwarf-5", "-gz=zlib"}, {"aarch64-linux-gnu-gcc", "-g"}, {"i686-linux-gnu-gcc", "-g"}} {
		if _, err := run.LookPath(c[0]); err != nil {
			continue
		}
		obj := fixture.Build(f, c[0], dir, "s.c", src, fmt.Sprintf("%d.o", i), append([]string{"-c"}, c[1:]...)...)
		if b, err := os.ReadFile(obj); err == nil {
			f.Add(b)
		}
	}
	f.Add(elfgen.DebugBomb(1<<20, 1<<20))
	f.Add(elfgen.DebugBomb(4<<30, 1<<20))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := NewHeaders(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		secs, err := x.Sections()
		if err != nil {
			return
		}
		budget := NewBudget(4 << 20)
		for i := range secs {
			d, err := x.DebugData(i, budget)
			if err != nil {
				continue
			}
			size, compressed, _ := x.UncompressedSize(secs[i])
			if secs[i].Type != elf.SHT_NOBITS && uint64(len(d)) != size || compressed && size > 4<<20 {
				t.Fatalf("section %d: %d bytes, claimed %d (compressed %v)", i, len(d), size, compressed)
			}
		}
	})
}

// fuzzScratch is shared by every FuzzScratch input, as a scan worker's is
// by every file it reads: what one input leaves in it must not change
// what the next reads.
var fuzzScratch = NewScratch()

// FuzzScratch: a file read through a reused Scratch, with a caller's head
// as a scan worker passes it, reads exactly as one read alone: the same
// error or none, the same headers, dynamic section, version tables and
// sections.
func FuzzScratch(f *testing.F) {
	for _, p := range []string{"/usr/bin/true", "/bin/true", "/usr/lib/x86_64-linux-gnu/libdl.so.2", "/usr/lib/aarch64-linux-gnu/libdl.so.2", "/usr/aarch64-linux-gnu/lib/crt1.o"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x01\x02\x01"))
	f.Add(elfgen.NameBomb(64, 256))
	f.Fuzz(func(t *testing.T, b []byte) {
		alone, aerr := NewFile(bytes.NewReader(b), int64(len(b)))
		head := append([]byte(nil), b[:min(len(b), 8<<10)]...)
		shared, serr := NewFileScratch(bytes.NewReader(b), int64(len(b)), head, fuzzScratch)
		if (aerr == nil) != (serr == nil) {
			t.Fatalf("alone: %v; through the Scratch: %v", aerr, serr)
		}
		if aerr != nil {
			return
		}
		if a, s := describe(alone), describe(shared); a != s {
			t.Fatalf("alone:\n%s\nthrough the Scratch:\n%s", a, s)
		}
	})
}

// describe is what a floor and its callers read of f, as text.
func describe(f *File) string {
	var w bytes.Buffer
	fmt.Fprintf(&w, "%v %v %v %v %v %#x %q %v\n", f.Class, f.Data, f.OSABI, f.Type, f.Machine, f.Entry, f.Interp, f.Kind())
	fmt.Fprintf(&w, "progs %v\n", f.Progs)
	if d := f.Dynamic; d != nil {
		fmt.Fprintf(&w, "dynamic %q %q %q %q %v %v %v %v\n", d.Needed, d.Soname, d.Rpath, d.Runpath, d.Flags, d.Flags1, d.BindNow, d.HasRelr)
		for _, tag := range []elf.DynTag{elf.DT_STRTAB, elf.DT_STRSZ, elf.DT_VERNEED, elf.DT_VERNEEDNUM, elf.DT_VERDEF, elf.DT_GNU_HASH, elf.DT_JMPREL, dtRelr} {
			v, ok := d.Tag(tag)
			fmt.Fprintf(&w, " %v=%#x,%v", tag, v, ok)
		}
		fmt.Fprintln(&w)
	}
	needs, err := f.VersionNeeds()
	fmt.Fprintf(&w, "needs %+v %v\n", needs, err != nil)
	defs, err := f.VersionDefs()
	fmt.Fprintf(&w, "defs %+v %v\n", defs, err != nil)
	secs, err := f.Sections()
	fmt.Fprintf(&w, "sections %+v %v\n", secs, err != nil)
	return w.String()
}
