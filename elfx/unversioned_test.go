package elfx

import (
	"testing"

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
