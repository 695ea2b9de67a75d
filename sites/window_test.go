package sites

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestWindows holds the windowed scan to one pass over the whole
// section: with windows of a few bytes (one per function, or per few
// instructions on aarch64) and on both cores, the sites are the same.
func TestWindows(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conv.h"), []byte(truthHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	type build struct {
		name, cc, src, file string
		args                []string
	}
	builds := []build{
		{"c", "gcc", truthC, "t.c", nil},
		{"nopie", "gcc", truthC, "t.c", []string{"-no-pie", "-fno-pie", "-fno-plt"}},
		{"cxx", "g++", truthCXX, "t.cc", nil},
		{"arm64", "aarch64-linux-gnu-gcc", truthC, "t.c", []string{"-fno-plt"}},
	}
	defer func(n uint64) { windowSize = n }(windowSize)
	for _, bd := range builds {
		t.Run(bd.name, func(t *testing.T) {
			cc := fixture.Compiler(t, bd.cc)
			out := fixture.Build(t, cc, dir, bd.name+"-"+bd.file, bd.src, bd.name, append([]string{"-g", "-O2", "-I", dir}, bd.args...)...)
			want := imports(t, out)
			windowSize = 1 << 20
			whole := find(t, out, want, Options{})
			if len(whole.Sites) == 0 {
				t.Fatal("no sites")
			}
			for _, n := range []uint64{4, 64, 256} {
				windowSize = n
				got := find(t, out, want, Options{})
				if a, b := fmt.Sprint(whole.Sites), fmt.Sprint(got.Sites); a != b {
					t.Errorf("windows of %d bytes:\n got %s\nwant %s", n, b, a)
				}
			}
		})
	}
}
