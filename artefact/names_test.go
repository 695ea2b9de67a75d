package artefact

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestLongNames (issue 28 item 9): a member name, or a link's target,
// too long to be a path is a malformed member whose error states its
// length; the member is named by its first bytes, so a 52 KB .tar.gz of
// fifty 1 MB PAX names no longer makes 48 MB of report. A name of 4095
// bytes, the longest path, is read.
func TestLongNames(t *testing.T) {
	bin, _ := elfs(t)
	huge := "./d/" + strings.Repeat("a", 1<<20-1024)   // a PAX record holds at most 1 MiB
	longest := "./" + strings.Repeat("b/", 2046) + "x" // 4095 bytes
	if len(longest) != pathMax-1 {
		t.Fatalf("the longest name is %d bytes", len(longest))
	}
	cpio := func(name string) []byte {
		return mkCpio([]ent{{name: name, data: bin}, {name: "./bin/prog", data: bin}}, "070701")
	}
	for _, tc := range []struct {
		name   string
		b      []byte
		member string // the long member's name as reported
		length int
	}{
		{"tar pax name", gz(mkTar(t, []ent{{name: huge, data: bin}, {name: "./bin/prog", data: bin}, {name: longest, data: bin}})), "./d/" + strings.Repeat("a", 60) + "...", len(huge)},
		{"tar pax link target", gz(mkTar(t, []ent{{name: "./l", link: huge[2:]}, {name: "./bin/prog", data: bin}, {name: longest, data: bin}})), "/l", len(huge) - 2},
		{"tar hard link target", gz(mkTar(t, []ent{{name: "./h", hard: huge[2:]}, {name: "./bin/prog", data: bin}, {name: longest, data: bin}})), "/h", len(huge) - 2},
		{"zip name", mkZip(t, []ent{{name: huge[2:65000], data: bin}, {name: "bin/prog", data: bin}, {name: longest[2:], data: bin}}), "d/" + strings.Repeat("a", 62) + "...", 64998},
		{"cpio name", gz(cpio(huge[:60000])), "./d/" + strings.Repeat("a", 60) + "...", 60000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := walkBytes(t, tc.b, Options{})
			if g.err != nil {
				t.Fatalf("walk: %v", g.err)
			}
			for _, n := range g.order {
				if len(n) >= pathMax {
					t.Errorf("a member named by %d bytes", len(n))
				}
			}
			m := g.members[tc.member]
			if m == nil {
				t.Fatalf("no member %q; got %.200q", tc.member, g.order)
			}
			want := strconv.Itoa(tc.length) + " bytes, longer than a path can be"
			if !errors.Is(m.Err, ErrFormat) || !strings.Contains(m.Err.Error(), want) || len(m.Err.Error()) > 200 {
				t.Errorf("%s: %.300v; want %v saying %q", tc.member, m.Err, ErrFormat, want)
			}
			if p := g.members["/bin/prog"]; p == nil || p.Err != nil || !bytes.Equal(p.Data, bin) {
				t.Errorf("/bin/prog after it was not read")
			}
			if strings.HasPrefix(tc.name, "cpio") {
				return
			}
			if l := g.members["/"+longest[2:]]; l == nil || l.Err != nil {
				t.Errorf("the 4095-byte name was not read: %v", l)
			}
		})
	}
}

// TestLongLayerName: a manifest naming a layer by more than a path can
// be refuses the image, stating the length, not the name.
func TestLongLayerName(t *testing.T) {
	man, _ := json.Marshal([]map[string]any{{"Layers": []string{strings.Repeat("l", 1<<20)}}})
	g := walkBytes(t, mkTar(t, []ent{{name: "manifest.json", data: man}}), Options{})
	if !errors.Is(g.err, ErrFormat) || len(g.err.Error()) > 400 || !strings.Contains(g.err.Error(), "layer 1's name of 1048576 bytes") {
		t.Errorf("walk: %.400v", g.err)
	}
}
