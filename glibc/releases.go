package glibc

import (
	"strconv"
	"strings"
)

// Releases are the releases the embedded database of arch knows, oldest
// first: its first version (2.2.5 on x86_64), then every 2.N up to the
// newest; nil when arch is not in it.
func Releases(arch string) []string {
	a, err := ArchHeader(arch)
	if err != nil {
		return nil
	}
	out := []string{a.First}
	for minor := minorOf(a.First) + 1; minor <= minorOf(a.Newest); minor++ {
		out = append(out, "2."+strconv.Itoa(minor))
	}
	return out
}

// minorOf is N of a release 2.N[.M], or 0.
func minorOf(release string) int {
	parts := strings.Split(release, ".")
	if len(parts) < 2 || parts[0] != "2" {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}
