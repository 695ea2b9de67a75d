package elfx

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
)

// TestHasUnversionedRefs: a normal program has none (its weak
// __gmon_start__ does not count); one linked with its symbols left to
// be found later has one.
func TestHasUnversionedRefs(t *testing.T) {
	gcc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	plain := fixture.Build(t, gcc, dir, "p.c", "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n", "plain")
	undef := fixture.Build(t, gcc, dir, "u.c", "int later(void);\nint main(void) { return later(); }\n", "undef", "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files")
	for _, c := range []struct {
		path string
		want bool
	}{{plain, false}, {undef, true}} {
		f, err := Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.HasUnversionedRefs()
		f.Close()
		if err != nil || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.path, got, err, c.want)
		}
	}
}

// FuzzUnversionedRefs: on any bytes, HasUnversionedRefs reads within the
// file and finds every unversioned strong reference Symbols shows.
func FuzzUnversionedRefs(f *testing.F) {
	f.Add(elfgen.NameBomb(4, 8))
	f.Add(elfgen.Needing([]string{"libc.so.6"}, "", ""))
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		has, herr := ef.HasUnversionedRefs()
		syms, err := ef.Symbols()
		if err != nil || herr != nil || has {
			return
		}
		for i, s := range syms {
			if i > 0 && s.Name != "" && s.Undefined() && s.Bind != elf.STB_WEAK && s.Bind != elf.STB_LOCAL && s.VersionIndex <= 1 {
				t.Fatalf("symbol %d %q is an unversioned reference HasUnversionedRefs missed", i, s.Name)
			}
		}
	})
}
