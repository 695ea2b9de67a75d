package report

import "strings"

// ShellQuote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes (which
// keep every byte, newlines included, literally).
func ShellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./+=,:@%-", c)) {
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
