package report

import "fmt"

// Plural writes n and noun, in the plural unless n is 1: "3 files".
func Plural(n int, noun string) string { return Plural64(int64(n), noun) }

// Plural64 is Plural of an int64.
func Plural64(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
