package table_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/abifloor/abifloor/ranges/table"
)

// A program that only reads a table and looks up a version imports this
// package alone (and, through it, symver).
func Example() {
	path := filepath.Join(os.TempDir(), "abifloor-example-table.json")
	os.WriteFile(path, []byte(`{"types":["NVOS21_PARAMETERS"],"ranges":[
		{"first":"535.104.05","last":"535.288.01","versions":["535.104.05","535.288.01"],"fingerprint":"sha256:a","changes":[]},
		{"first":"550.54.14","last":"550.54.14","versions":["550.54.14"],"fingerprint":"sha256:b","changes":[]}],"failed":[]}`), 0o644)
	defer os.Remove(path)

	t, err := table.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := t.Lookup("535.183.01")
	fmt.Println(a.Covered, a.Inferred, a.Lower, a.Upper, a.Range.Fingerprint)
	a, _ = t.Lookup("545.23.06")
	fmt.Println(a.Message)
	// Output:
	// true true 535.104.05 535.288.01 sha256:a
	// 545.23.06: not covered: in the gap between range 0 (535.104.05 … 535.288.01), last 535.288.01, and range 1 (550.54.14), first 550.54.14, whose ABIs differ
}
