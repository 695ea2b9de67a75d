package artefact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestSpillOver: a member read whole past Options.SpillOver reaches fn as
// a temporary file that nobody else can name (it is unlinked before
// anything is written to it), holding the member's bytes, and is closed
// once fn returns; a member under it is read into memory as before; and
// a compressed member claiming more than the allowance is refused before
// a byte of it is written.
func TestSpillOver(t *testing.T) {
	_, lib := elfs(t)
	big := append(append([]byte(nil), lib...), bytes.Repeat([]byte("pad"), 1<<20)...)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ar := gz(mkTar(t, []ent{{name: "small.so", data: lib}, {name: "big.so", data: big}}))
	p := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(p, ar, 0o644); err != nil {
		t.Fatal(err)
	}
	var kept io.ReaderAt
	err := Walk(context.Background(), p, Options{SparseOver: -1, SpillOver: int64(len(lib)) + 1}, func(m *Member) error {
		if m.Err != nil {
			t.Fatalf("%s: %v", m.Name, m.Err)
		}
		want := lib
		if m.Name == "/big.so" {
			want = big
			if m.Data != nil {
				t.Error("a member over SpillOver was read into memory")
			}
			if _, ok := m.Content.(*os.File); !ok {
				t.Errorf("its content is a %T, not a file", m.Content)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("the temporary file has a name in $TMPDIR: %v", ents)
			}
			kept = m.Content
		} else if m.Data == nil {
			t.Error("a member under SpillOver was not read into memory")
		}
		got := make([]byte, m.Size)
		if _, err := m.Content.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: read back %d bytes, %v; want the member's %d", m.Name, len(got), err, len(want))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kept == nil {
		t.Fatal("no big member")
	}
	if _, err := kept.ReadAt(make([]byte, 1), 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("after fn returned, the file reads: %v", err)
	}

	// 64 MiB of zeros in a few KB of gzip: 32 times that is far less.
	bomb := gz(mkTar(t, []ent{{name: "big.so", data: append(append([]byte(nil), lib...), make([]byte, 64<<20)...)}}))
	g := walkBytes(t, bomb, Options{SparseOver: -1, SpillOver: 1 << 20, ratio: 32, minExpand: 1 << 20})
	if m := g.members["/big.so"]; m == nil || !errors.Is(m.Err, ErrBomb) {
		t.Errorf("a member claiming 64 MiB of a %d-byte artefact: %+v", len(bomb), m)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in $TMPDIR: %v", ents)
	}
}
