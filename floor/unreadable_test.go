package floor

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestManyUnreadable (issue 28 item 10): past maxUnreadable, an
// artefact's unreadable members are one line that counts them, and the
// run's errors count them all: 100,000 truncated ELF members in an 821 KB
// .tar.gz made 92 MB of SARIF and 283 MB of memory, one report each. Met
// inside a directory, the malformed ones (links out) are warnings and the
// rest errors, counted apart.
func TestManyUnreadable(t *testing.T) {
	fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	prog, err := os.ReadFile(fixture.Build(t, "gcc", dir, "m.c", "int main(void){return 0;}\n", "prog"))
	if err != nil {
		t.Fatal(err)
	}
	const links, cut = 150, 250
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	add := func(h *tar.Header, data []byte) {
		h.Size, h.Mode = int64(len(data)), 0o755
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	add(&tar.Header{Name: "bin/prog", Typeflag: tar.TypeReg}, prog)
	for i := range links {
		add(&tar.Header{Name: fmt.Sprintf("l/%03d", i), Typeflag: tar.TypeSymlink, Linkname: "../../../etc/passwd"}, nil)
	}
	for i := range cut {
		add(&tar.Header{Name: fmt.Sprintf("lib/x%03d.so", i), Typeflag: tar.TypeReg}, prog[:100])
	}
	tw.Close()
	zw.Close()
	art := filepath.Join(dir, "tree", "many.tar.gz")
	os.MkdirAll(filepath.Dir(art), 0o755)
	if err := os.WriteFile(art, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("named", func(t *testing.T) {
		c, err := Check(context.Background(), []string{art}, Requirements{}, Options{Limits: Limits{"GLIBC": "2.99"}})
		if err != nil {
			t.Fatal(err)
		}
		if c.Passed() {
			t.Error("the check passed")
		}
		if c.Stats.Errors != links+cut || c.Stats.ELF != 1 {
			t.Errorf("stats %+v, want %d errors and 1 ELF file", c.Stats, links+cut)
		}
		if len(c.Files) != 1+maxUnreadable+1 {
			t.Errorf("%d reports, want the program, %d errors and one line", len(c.Files), maxUnreadable)
		}
		last := c.Files[len(c.Files)-1]
		if want := fmt.Sprintf("and %d more unreadable members", links+cut-maxUnreadable); last.Path != art || last.ErrorMessage() != want {
			t.Errorf("last report %s: %v, want %s: %s", last.Path, last.Error, art, want)
		}
		var out bytes.Buffer
		c.WriteSARIF(&out, "test")
		if out.Len() > 200<<10 {
			t.Errorf("%d bytes of SARIF", out.Len())
		}
	})

	t.Run("in a tree", func(t *testing.T) {
		res := Scan(context.Background(), []string{filepath.Dir(art)}, Options{})
		// The first 100 are the links: warnings. Of the 300 past them,
		// 50 links (warnings) and 250 truncated members (errors).
		if res.Stats.Errors != cut {
			t.Errorf("%d errors, want %d", res.Stats.Errors, cut)
		}
		if len(res.Skipped) != maxUnreadable+1 || !strings.HasSuffix(res.Skipped[maxUnreadable].Error.Error(), fmt.Sprintf("and %d more unreadable members", links-maxUnreadable)) {
			t.Errorf("%d skipped, the last %v", len(res.Skipped), res.Skipped[len(res.Skipped)-1].Error)
		}
		last := res.Files[len(res.Files)-1]
		if want := fmt.Sprintf("and %d more unreadable members", cut); last.ErrorMessage() != want {
			t.Errorf("last report %s: %v, want %s", last.Path, last.Error, want)
		}
	})
}
