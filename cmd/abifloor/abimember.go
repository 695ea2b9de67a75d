package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/report"
)

// cleanLines is report.Clean on each line of a message that lists names
// one a line (abi.ErrManyELF, a compiler's messages).
func cleanLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		lines[i] = report.Clean(l)
	}
	return strings.Join(lines, "\n")
}

// limitHint names the flag that raises the limit a library error is
// about: libraries name no flags.
func limitHint(err error) string {
	switch {
	case errors.Is(err, abi.ErrDebugTooLarge):
		return " (--max-debug-size)"
	case errors.Is(err, bind.ErrImageMemory):
		return " (raise --max-memory)"
	case errors.Is(err, artefact.ErrBomb):
		return fmt.Sprintf(" (abi reads at most %d times an artefact's size from it, plus %d MiB: extract the member and name the file)", artefact.HoldRatio, artefact.HoldSlack>>20)
	}
	return ""
}
