package artefact

import (
	"errors"
	"testing"
)

// TestXZDictionary: an xz header claiming a 4 GiB dictionary is refused
// before the Go reader allocates it.
func TestXZDictionary(t *testing.T) {
	ok := xzc(t, []byte("small"))
	if err := xzDictOK(ok); err != nil {
		t.Errorf("a real stream: %v", err)
	}
	huge := append([]byte(nil), ok...)
	// The first block header's LZMA2 properties byte is the dictionary
	// size code: 40 is 4 GiB.
	for i := 14; i+2 < 24; i++ {
		if huge[i] == 0x21 && huge[i+1] == 1 {
			huge[i+2] = 40
		}
	}
	if err := xzDictOK(huge); err == nil {
		t.Error("a 4 GiB dictionary was accepted")
	}
	g := walkBytes(t, huge, Options{NoTools: true})
	if g.err == nil || !errors.Is(g.err, ErrFormat) {
		t.Errorf("walk: %v", g.err)
	}
}
