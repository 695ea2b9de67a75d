package table

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The package an importer pays for depends on the standard library and
// symver only (issue "one home", item 5).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, ".") && p != "github.com/abifloor/abifloor/symver" && p != "github.com/abifloor/abifloor/ranges/table" {
			t.Errorf("depends on %s", p)
		}
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("fifo: %v", err)
	}
	if _, err := Read(dir); err == nil {
		t.Error("directory read as a table")
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"ranges":[{"first":"1","last":"1","versions":["1"]}]}`), 0o644)
	if _, err := Read(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad table: %v", err)
	}
}

func TestLookupInferredBounds(t *testing.T) {
	tab, err := New(nil, []Version{{"1.0", "a"}, {"1.5", "a"}, {"2.0", "a"}, {"3.0", "b"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tab.Lookup("1.7")
	if !a.Covered || !a.Inferred || a.Lower != "1.5" || a.Upper != "2.0" || a.Range != &tab.Ranges[0] {
		t.Errorf("1.7: %+v", a)
	}
	a, _ = tab.Lookup("2.5")
	if a.Covered || a.Range != nil || a.Before == nil || a.Before.Version != "2.0" || a.After == nil || a.After.Version != "3.0" {
		t.Errorf("2.5: %+v", a)
	}
	if !strings.Contains(a.Message, "2.0") || !strings.Contains(a.Message, "3.0") {
		t.Errorf("2.5: message %q names neither neighbour", a.Message)
	}
}

func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"types":[],"ranges":[{"first":"1","last":"2","versions":["1","2"],"fingerprint":"a","changes":[]},{"first":"3","last":"3","versions":["3"],"fingerprint":"b"},{"first":"4","last":"4","versions":["4"],"fingerprint":"a","same_as":0}],"failed":["2.5"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := ReadJSON("f.json", b)
		if err != nil {
			return
		}
		for _, v := range []string{"0", "1", "2.5", "1000"} {
			if _, err := tab.Lookup(v); err != nil {
				t.Fatal(err)
			}
		}
		_ = tab.Add(Version{Name: "3.5", Fingerprint: "z"}, nil)
		var buf strings.Builder
		if err := tab.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadJSON("again.json", []byte(buf.String())); err != nil {
			t.Fatalf("a table written after Add does not read back: %v\n%s", err, buf.String())
		}
	})
}

// TestChangeString: no change reads with a double space, a type's own
// change included (issue 17: "nv_ioctl_query_device_intr:  removed").
func TestChangeString(t *testing.T) {
	for _, tt := range []struct {
		c    Change
		want string
	}{
		{Change{Type: "struct s", Path: "y.offset", Old: "4", New: "8"}, "struct s: y.offset 4 -> 8"},
		{Change{Type: "struct t", Kind: "type-added"}, "struct t: added"},
		{Change{Type: "nv_ioctl_query_device_intr", Old: "16"}, "nv_ioctl_query_device_intr: removed"},
		{Change{Type: "struct s", Path: "z", Kind: "member-added", New: "int"}, "struct s: z added (int)"},
		{Change{Type: "NV_X", Kind: "constant-removed"}, "NV_X: removed"},
		{Change{Type: "struct s", Path: "size"}, "struct s: size"},
	} {
		if got := tt.c.String(); got != tt.want || strings.Contains(got, "  ") {
			t.Errorf("%+v.String() = %q, want %q", tt.c, got, tt.want)
		}
	}
}
