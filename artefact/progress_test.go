package artefact

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/imagetest"
)

// TestProgress: Options.Progress follows a large member through every
// kind of input (a stream, a zip, an image layout and a docker-save
// tarball), with the bytes read of the artefact on disk growing up to its
// size.
func TestProgress(t *testing.T) {
	_, lib := elfs(t)
	big := append([]byte(nil), lib...)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3 << 20 / 8 { // incompressible, so the input moves with it
		v := rng.Uint64()
		big = append(big, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
	}
	ents := []ent{{name: "small.so", data: lib}, {name: "big.so", data: big}}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	layout := filepath.Join(dir, "layout")
	docker := imagetest.Write(t, layout, mkTar(t, ents))
	for _, tc := range []struct{ name, path, member string }{
		{"tar.gz", write("a.tar.gz", gz(mkTar(t, ents))), "/big.so"},
		{"zip", write("a.zip", mkZip(t, ents)), "/big.so"},
		{"layout", layout, "/big.so"},
		{"docker", write("docker.tar", docker), "/big.so"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls, ofBig int
			var last, total int64
			opt := Options{Progress: func(member string, read, tot int64) {
				calls++
				if member == tc.member {
					ofBig++
				}
				if read < last || read > tot {
					t.Errorf("%s: read %d after %d, of %d", member, read, last, tot)
				}
				last, total = read, tot
			}}
			if err := Walk(context.Background(), tc.path, opt, func(*Member) error { return nil }); err != nil {
				t.Fatal(err)
			}
			want := dirSize(tc.path)
			if st, err := os.Stat(tc.path); err == nil && !st.IsDir() {
				want = st.Size()
			}
			if total != want {
				t.Errorf("total %d, want the artefact's size %d", total, want)
			}
			// Called as it starts, as its MiBs are read, and at its end.
			if ofBig < 4 {
				t.Errorf("%d calls for %s, want 4 or more", ofBig, tc.member)
			}
			if last < total*9/10 {
				t.Errorf("last read %d of %d: the member's 3 MiB were not counted", last, total)
			}
		})
	}
}
