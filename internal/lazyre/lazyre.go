// Package lazyre compiles a package's regular expressions on first use,
// not at program start: abifloor cc runs once per compiler call, and every
// package-level regexp.MustCompile of the binary was paid by each call,
// used or not.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// (and panics there if expr is malformed, as regexp.MustCompile does) and
// returns the same *regexp.Regexp after.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
