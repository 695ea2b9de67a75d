package report

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean makes a string taken from an input (a file name, a symbol or type
// name, an error that quotes them) safe to print as text: control
// characters are written as Go escapes (\n, \t, \x1b, \u009b), as are bytes
// that are not UTF-8 and the Unicode controls that reorder how a line is
// displayed (U+202E and friends). A newline in a file name can then no
// longer start a line of its own (which GitHub Actions would run as a
// workflow command such as ::error), and an escape sequence in a symbol
// name can no longer drive the terminal. Everything else, backslashes
// included, is printed as it is, so ordinary names read unchanged.
func Clean(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(r, n) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		default:
			q := strconv.QuoteRuneToASCII(r) // '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether the rune r (n bytes long in the input) must
// not reach a terminal as it is.
func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true // not UTF-8
	case r < 0x20 || r == 0x7f:
		return true // C0 controls, DEL
	case r >= 0x80 && r <= 0x9f:
		return true // C1 controls: U+009B is CSI on some terminals
	case r == 0x061c || r == 0x200e || r == 0x200f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069:
		return true // bidirectional controls
	case r == 0x2028 || r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
