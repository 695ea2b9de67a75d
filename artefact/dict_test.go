package artefact

import (
	"bytes"
	"errors"
	"os/exec"
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
	g := walkBytes(t, huge, Options{noTools: true})
	if g.err == nil || !errors.Is(g.err, ErrFormat) {
		t.Errorf("walk: %v", g.err)
	}
}

// TestDecoderWindows (issue 19 item 9) rebuilds the attacks at test time:
// a small .tar.zst made with --long=28 (a 256 MiB window) and a .tar.xz
// with a 256 MiB dictionary are refused with an error that says why,
// through the Go readers and the xz program alike; the same data made
// with the largest real settings (zstd --ultra -22, xz -9) reads.
func TestDecoderWindows(t *testing.T) {
	bin, _ := elfs(t)
	raw := mkTar(t, []ent{{name: "usr/bin/prog", data: bin}})
	for _, c := range []struct {
		tool    string
		args    []string
		refused bool
	}{
		{"zstd", []string{"-c", "--long=28"}, true},
		{"zstd", []string{"-c", "--ultra", "-22"}, false},
		{"xz", []string{"-c", "--lzma2=preset=6,dict=256MiB"}, true},
		{"xz", []string{"-c", "-9"}, false},
	} {
		if _, err := exec.LookPath(c.tool); err != nil {
			t.Logf("%s not on PATH: skipped", c.tool)
			continue
		}
		cmd := exec.Command(c.tool, c.args...)
		cmd.Stdin = bytes.NewReader(raw)
		z, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		for _, noTools := range []bool{true, false} {
			g := walkBytes(t, z, Options{noTools: noTools})
			var merr error
			for _, m := range g.members {
				if m.Err != nil {
					merr = m.Err
				}
			}
			m := g.members["/usr/bin/prog"]
			read := m != nil && m.Err == nil && m.Content != nil
			if c.refused {
				if read {
					t.Errorf("%s %v (noTools=%v): read, want a refusal", c.tool, c.args, noTools)
				}
				t.Logf("%s %v (noTools=%v): %v %v", c.tool, c.args, noTools, g.err, merr)
				if err := g.err; err == nil && merr == nil {
					t.Errorf("%s %v (noTools=%v): refused without an error", c.tool, c.args, noTools)
				}
			} else if !read {
				t.Errorf("%s %v (noTools=%v): %v %v", c.tool, c.args, noTools, g.err, merr)
			}
		}
	}
}

// FuzzXZDictOK: the xz block header reader never panics, and a stream
// it accepts claims no dictionary over maxXZDict.
func FuzzXZDictOK(f *testing.F) {
	f.Add(xzc(f, []byte("small")))
	f.Add([]byte("\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01\x28"))
	f.Fuzz(func(t *testing.T, h []byte) {
		xzDictOK(h)
	})
}

// xzDictOK reads the LZMA2 dictionary size from the first block header of
// an xz stream (after the 12-byte stream header) and refuses a huge one.
func xzDictOK(h []byte) error {
	_, err := xzDict(h)
	return err
}
