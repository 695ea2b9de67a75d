package main

import (
	"strings"

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
