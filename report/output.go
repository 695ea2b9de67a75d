package report

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// GitHubOutput writes name=value as $GITHUB_OUTPUT reads it: one line,
// or, for a value with a line break, between delimiter lines no value
// can hold (random), as the runner's own toolkit does.
func GitHubOutput(w io.Writer, name, value string) {
	if !strings.ContainsAny(value, "\r\n") {
		fmt.Fprintf(w, "%s=%s\n", name, value)
		return
	}
	var r [16]byte
	rand.Read(r[:])
	delim := "ghadelimiter_" + hex.EncodeToString(r[:])
	fmt.Fprintf(w, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
}
