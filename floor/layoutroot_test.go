package floor

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/abifloor/abifloor/internal/imagetest"
)

// TestLayoutAmongFiles: an OCI layout named between files is read as
// one artefact, by a worker, and reported in the place its argument
// has; the files around it keep theirs.
func TestLayoutAmongFiles(t *testing.T) {
	prog, err := os.ReadFile("/usr/bin/true")
	if err != nil {
		t.Skip("no /usr/bin/true")
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	tw.WriteHeader(&tar.Header{Name: "usr/bin/prog", Mode: 0o755, Size: int64(len(prog)), Typeflag: tar.TypeReg})
	tw.Write(prog)
	tw.Close()
	dir := t.TempDir()
	layout := filepath.Join(dir, "image")
	imagetest.Write(t, layout, layer.Bytes())
	var paths []string
	for _, name := range []string{"b", "a"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, prog, 0o755); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	res := Scan(context.Background(), []string{paths[0], layout, paths[1]}, Options{})
	var got []string
	for _, f := range res.Files {
		if f.Error != nil {
			t.Errorf("%s: %v", f.Path, f.Error)
		}
		got = append(got, f.Path)
	}
	want := []string{paths[0], layout + "!/usr/bin/prog", paths[1]}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}
