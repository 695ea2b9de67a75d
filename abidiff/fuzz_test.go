package abidiff

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/report"
)

// FuzzCompareJSON drives the path an ABI JSON file from another CI job
// takes: abiread.Load (which validates it), Compare, and both renderings. Any
// input must end in an error or a report, never a panic or a hang.
func FuzzCompareJSON(f *testing.F) {
	golden, _ := os.ReadFile("../cmd/abifloor/testdata/golden/abi_dump_json.golden")
	seed := strings.ReplaceAll(string(golden), "FUNC_SIZE", "16")
	f.Add([]byte(seed), []byte(seed))
	f.Add([]byte(seed), []byte(strings.Replace(seed, `"size": 8`, `"size": 16`, 1)))
	small := `{"schema": 1, "debug_info": "dwarf", "types": {"struct s": {"kind": "struct", "name": "s", "size": 8,
"members": [{"name": "a", "offset": 0, "type": {"ref": "int"}}]}, "int": {"kind": "base", "name": "int", "size": 4, "encoding": "signed"},
"t": {"kind": "typedef", "name": "t", "elem": {"ref": "t"}}},
"symbols": [{"name": "f", "version": "V_1", "default": true, "kind": "func", "binding": "global",
"type": {"kind": "func", "elem": {"ref": "int"}, "params": [{"kind": "pointer", "size": 8, "elem": {"ref": "struct s"}}, {"ref": "t"}]}}]}`
	f.Add([]byte(small), []byte(strings.Replace(small, `"offset": 0`, `"offset": 4`, 1)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, old, new []byte) {
		load := func(name string, b []byte) *abi.ABI {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			a, err := abiread.Load(context.Background(), p, abiread.Options{NoDefaultDebugDir: true})
			if err != nil {
				return nil
			}
			return a
		}
		oa, na := load("old.json", old), load("new.json", new)
		if oa == nil || na == nil {
			return
		}
		r := compare(t, oa, na, nil)
		if err := r.WriteText(io.Discard, report.Painter{}); err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(&r); err != nil {
			t.Fatal(err)
		}
	})
}
