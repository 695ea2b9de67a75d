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
