package artefact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/imagetest"
)

// TestBadWhiteouts (issue 28 item 14): a whiteout that names no file of
// its directory (".wh." alone, ".wh.." the directory itself, ".wh..." its
// parent) refuses the image, naming the layer and the member: read as
// deletions they hid a whole /usr/lib. The opaque marker ".wh..wh..opq"
// and a plain whiteout are read as before.
func TestBadWhiteouts(t *testing.T) {
	bin, lib := elfs(t)
	base := mkTar(t, []ent{{name: "usr/bin/prog", data: bin}, {name: "usr/lib/libf.so", data: lib}})
	for _, tc := range []struct {
		member string // in the second layer
		bad    bool
		lib    bool // /usr/lib/libf.so still visible
	}{
		{"usr/lib/.wh..", true, false},
		{"usr/lib/.wh...", true, false},
		{"usr/lib/.wh.", true, false},
		{".wh..", true, false},
		{".wh...", true, false},
		{"usr/lib/.wh..wh..opq", false, false},
		{"usr/lib/.wh.libf.so", false, false},
		{"usr/lib/.wh.other", false, true},
		{"usr/lib/.wh....", false, true}, // deletes a file named "..."
	} {
		t.Run(tc.member, func(t *testing.T) {
			dir := t.TempDir()
			tarball := imagetest.Write(t, filepath.Join(dir, "oci"), base, mkTar(t, []ent{{name: tc.member}, {name: "etc/motd", data: []byte("hi")}}))
			p := filepath.Join(dir, "image.tar")
			if err := os.WriteFile(p, tarball, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, img := range []string{filepath.Join(dir, "oci"), p} {
				g := walkPath(t, img, Options{})
				if !tc.bad {
					if g.err != nil {
						t.Errorf("%s: %v", filepath.Base(img), g.err)
					}
					if got := g.members["/usr/lib/libf.so"] != nil; got != tc.lib {
						t.Errorf("%s: /usr/lib/libf.so visible %v, want %v", filepath.Base(img), got, tc.lib)
					}
					if g.members["/usr/bin/prog"] == nil {
						t.Errorf("%s: /usr/bin/prog hidden", filepath.Base(img))
					}
					continue
				}
				want := "layer 2 "
				name := "/" + tc.member
				if !errors.Is(g.err, ErrFormat) || !strings.Contains(g.err.Error(), want) || !strings.Contains(g.err.Error(), name+" ") || !strings.HasPrefix(g.err.Error(), img+": ") {
					t.Errorf("%s: %v; want %v naming the image, %q and %q", filepath.Base(img), g.err, ErrFormat, want, name)
				}
			}
		})
	}
}

// TestRootEntry: a layer's entry naming the root itself ("./" as a
// file or a link) replaces nothing: containerd ignores it ("resolved to
// root"). Read as a file over a directory, it hid every lower layer.
func TestRootEntry(t *testing.T) {
	bin, lib := elfs(t)
	base := mkTar(t, []ent{{name: "usr/bin/prog", data: bin}, {name: "usr/lib/libf.so", data: lib}})
	for _, top := range []ent{{name: ".", data: []byte("x")}, {name: "./.", link: "nowhere"}, {name: "usr/..", data: []byte("x")}} {
		dir := t.TempDir()
		imagetest.Write(t, dir, base, mkTar(t, []ent{top, {name: "etc/motd", data: []byte("hi")}}))
		g := walkPath(t, dir, Options{})
		if g.err != nil || g.members["/usr/lib/libf.so"] == nil || g.members["/usr/bin/prog"] == nil {
			t.Errorf("%q over the image: %v, members %q", top.name, g.err, g.order)
		}
	}
}
