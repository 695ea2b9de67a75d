package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/floor"
)

// The annotation for one unreadable file is at that file, wherever it
// comes in the results.
func TestCheckGitHubUnreadableAt(t *testing.T) {
	res := &floor.Result{Files: []floor.FileReport{{Path: "good.so"}, {Path: "bad.so", Error: errors.New("malformed ELF: truncated")}}}
	var out bytes.Buffer
	res.WriteGitHub(&out, nil, false)
	if !strings.Contains(out.String(), "::error file=bad.so,title=unreadable ELF file::") {
		t.Errorf("annotations:\n%s", out.String())
	}
}
