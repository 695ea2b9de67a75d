package diff_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/diff"
	"github.com/abifloor/abifloor/report"
)

// Run does what `abifloor diff --strict OLD NEW` does: here on two ABI
// JSON dumps (a library, an object file or pkg.deb!/usr/lib/libx.so.1
// would do as well) of a library that dropped a function.
func Example() {
	dir, err := os.MkdirTemp("", "diff-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	dump := func(name string, syms ...string) string {
		a := &abi.ABI{Schema: abi.Schema, SOName: "libx.so.1", DebugInfo: abi.DebugNone}
		for _, s := range syms {
			a.Symbols = append(a.Symbols, abi.Symbol{Name: s, Version: "X_1", Default: true, Kind: abi.SymFunc, Binding: abi.BindGlobal})
		}
		b, _ := json.Marshal(a)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			panic(err)
		}
		return p
	}
	old, new := dump("old.json", "x_open", "x_close"), dump("new.json", "x_open")

	r, err := diff.Run(context.Background(), old, new, diff.Options{Rules: abidiff.ExitRules{Strict: true}})
	if err != nil {
		panic(err)
	}
	fmt.Println("compatible:", r.Report.Compatible)
	fmt.Println("removed:", r.Report.Symbols.Removed())
	fmt.Println("exit bits:", r.Exit(), r.Exit()&abidiff.ExitIncompatible != 0)
	fmt.Println("notes:", len(r.Notes))
	js, _ := json.Marshal(r)
	var back abidiff.Report
	fmt.Println("json reads back:", json.Unmarshal(js, &back) == nil && !back.Compatible)
	r.Write(os.Stdout, report.Text, "", report.Painter{})
	// Output:
	// compatible: false
	// removed: [x_close@@X_1]
	// exit bits: 12 true
	// notes: 2
	// json reads back: true
	// removed symbols (1):
	//   - x_close@@X_1
	// note: no debug info on either side: types not compared
	// incompatible: binaries built against the old ABI may break
}
