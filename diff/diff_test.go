package diff_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/diff"
	"github.com/abifloor/abifloor/report"
)

func writeDump(t *testing.T, a *abi.ABI) string {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "abi.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRun: the outcomes runDiff maps to exit codes, from the package.
func TestRun(t *testing.T) {
	lib := writeDump(t, &abi.ABI{Schema: abi.Schema, SOName: "libx.so.1", DebugInfo: abi.DebugNone,
		Symbols: []abi.Symbol{{Name: "f", Kind: abi.SymFunc, Binding: abi.BindGlobal}}})
	none := writeDump(t, &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugNone})

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := diff.Run(cancelled, lib, lib, diff.Options{})
	var inc *diff.IncompleteError
	if !errors.As(err, &inc) || !inc.Reading || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want an IncompleteError while reading", err)
	}

	if _, err := diff.Run(context.Background(), none, none, diff.Options{}); !errors.Is(err, diff.ErrNothingToCompare) {
		t.Errorf("two empty ABIs: %v", err)
	}

	supFile := filepath.Join(t.TempDir(), "sup")
	os.WriteFile(supFile, []byte("[suppress_file]\nsoname_regexp = ^libx\\.\n"), 0o644)
	sup, err := diff.ReadSuppressions(supFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := diff.Run(context.Background(), lib, none, diff.Options{Suppressions: sup})
	if err != nil || r.Skipped != lib || r.Exit() != 0 {
		t.Fatalf("[suppress_file]: %+v, %v", r, err)
	}
	var b strings.Builder
	if r.Write(&b, report.Text, "", report.Painter{}) != nil || !strings.Contains(b.String(), "not compared: a [suppress_file] section matches it") {
		t.Errorf("skipped: %q", b.String())
	}
	if len(r.Notes) != 2 || !strings.Contains(r.Notes[0], "no debug info found") {
		t.Errorf("notes %q", r.Notes)
	}
}
