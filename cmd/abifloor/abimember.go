package main

import (
	"errors"
	"fmt"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/report"
)

// cleanLines is report.Clean on each line of a message that lists names
// one a line (abimember.ErrManyELF, a compiler's messages).
func cleanLines(msg string) string { return report.CleanLines(msg) }

// errText is err's message for stderr, cleaned line by line: library
// errors quote file, member and symbol names from the inputs.
func errText(err error) string { return report.CleanLines(err.Error()) }

// limitHint names the flag that raises the limit a library error is
// about: libraries name no flags.
func limitHint(err error) string {
	switch {
	case errors.Is(err, abiread.ErrDebugTooLarge):
		return " (--max-debug-size)"
	case errors.Is(err, bind.ErrImageMemory):
		return " (raise --max-memory)"
	case errors.Is(err, artefact.ErrBomb):
		return fmt.Sprintf(" (abi reads at most %d times an artefact's size from it, plus %d MiB: extract the member and name the file)", artefact.HoldRatio, artefact.HoldSlack>>20)
	}
	return ""
}
