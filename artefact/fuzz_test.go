package artefact

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/abifloor/abifloor/internal/imagetest"
)

// FuzzWalk feeds arbitrary bytes to every reader: no panic, no member
// larger than the limit, and a bounded amount of work.
func FuzzWalk(f *testing.F) {
	small := []ent{{name: "./bin/x", data: []byte("\x7fELF\x02\x01\x01rest")}, {name: "./l", link: "bin/x"}, {name: "./d", dir: true}}
	tarb := mkTar(f, small)
	for _, seed := range [][]byte{
		tarb, gz(tarb), xzc(f, tarb), zst(f, tarb),
		mkZip(f, small[:1]),
		mkDeb(f, tarb, "Package: p\n"),
		mkRPM(gz(mkCpio(small, "070701")), map[string]string{"libc.so.6(GLIBC_2.2.5)(64bit)": ""}),
		mkCpio(small, "070702"),
		imagetest.Write(f, f.TempDir(), tarb, mkTar(f, []ent{{name: "bin/.wh.x"}})),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// noTools: the Go readers are what is fuzzed (the xz program is
		// its own project, and a process per input slows fuzzing).
		opt := Options{MaxMember: 1 << 20, minExpand: 8 << 20, ratio: 10, noTools: true}
		if len(b)%2 == 1 {
			opt.SpillOver = 512 // members past it go to a temporary file
		}
		var last int64
		opt.Progress = func(m string, read, total int64) {
			if read < last || read > total || total != int64(len(b)) {
				t.Fatalf("%s: progress %d after %d, of %d (size %d)", m, read, last, total, len(b))
			}
			last = read
		}
		_ = WalkReaderAt(context.Background(), bytes.NewReader(b), int64(len(b)), opt, func(m *Member) error {
			if int64(len(m.Data)) > opt.MaxMember {
				t.Fatalf("%s: %d bytes read, limit %d", m.Name, len(m.Data), opt.MaxMember)
			}
			if f, ok := m.Content.(*os.File); ok && m.Err == nil {
				if st, err := f.Stat(); err != nil || st.Size() != m.Size || m.Size <= opt.SpillOver {
					t.Fatalf("%s: spilled %v (%v), a member of %d bytes", m.Name, st, err, m.Size)
				}
			}
			return nil
		})
	})
}
