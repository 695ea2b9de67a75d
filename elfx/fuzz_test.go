package elfx

import (
	"os"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
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
	})
}
