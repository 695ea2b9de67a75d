// Package shellwords splits a line of text into words as a POSIX shell
// splits the words of a simple command, without running one: quotes and
// backslashes are honoured and removed, and nothing is expanded. It reads
// text a CI workflow author writes into an input (paths: dist/*.so,
// args: --exclude 'app*'), which a shell would have read had the tool
// been called from one.
//
// What only a shell can mean is refused rather than passed on as
// literal text, so that nobody's --exclude "$PATTERN" silently excludes
// nothing: an unquoted or double-quoted '$' or '`' (expansion, command
// substitution), an unquoted ';', '&', '|', '<', '>', '(' or ')'
// (operators), '{' (brace expansion), a '~' starting a word (tilde
// expansion), a '#' starting a word (a comment), and an unterminated
// quote. A carriage return is white space, as a file saved with CRLF
// line ends means it.
package shellwords

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Word is one word of the text.
type Word struct {
	// Text is the word as a shell would pass it to a program.
	Text string
	// Pattern is the word as a glob pattern (path.Match's syntax): the
	// characters *, ?, [ and \ that came from quotes or a backslash are
	// escaped with a backslash, the others kept, as a shell globs only
	// its unquoted characters.
	Pattern string
	// Glob reports whether the word holds an unquoted *, ? or [: a shell
	// would expand it as a pattern.
	Glob bool
}

// Error is a refusal: what the text holds at byte Offset that only a
// shell could mean.
type Error struct {
	Offset int
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("at byte %d: %s", e.Offset+1, e.Reason) }

const globChars = "*?[\\"

// Split splits s into words.
func Split(s string) ([]Word, error) {
	var words []Word
	var text, pat strings.Builder
	in, glob := false, false // in a word; the word has an unquoted glob character
	quoted := func(c byte) {
		text.WriteByte(c)
		if strings.IndexByte(globChars, c) >= 0 {
			pat.WriteByte('\\')
		}
		pat.WriteByte(c)
	}
	end := func() {
		if in {
			words = append(words, Word{Text: text.String(), Pattern: pat.String(), Glob: glob})
		}
		text.Reset()
		pat.Reset()
		in, glob = false, false
	}
	refuse := func(i int, why string) error {
		return &Error{Offset: i, Reason: fmt.Sprintf("%q %s", s[i:i+1], why)}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			end()
		case '\\':
			if i+1 == len(s) {
				return nil, &Error{Offset: i, Reason: "a backslash ends the text: it escapes nothing"}
			}
			i++
			if s[i] == '\n' { // a line continued
				continue
			}
			in = true
			quoted(s[i])
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, &Error{Offset: i, Reason: "a single quote is not closed"}
			}
			in = true
			for k := i + 1; k <= i+j; k++ {
				quoted(s[k])
			}
			i += j + 1
		case '"':
			in = true
			open, closed := i, false
			for i++; i < len(s); i++ {
				c := s[i]
				if c == '"' {
					closed = true
					break
				}
				switch c {
				case '$', '`':
					return nil, refuse(i, "in double quotes: a shell would expand it and none runs here; quote it with single quotes")
				case '\\':
					// In double quotes a backslash escapes only $ ` " \ and
					// a newline; before anything else it is itself.
					if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
						if s[i] == '\n' {
							continue
						}
						c = s[i]
					}
				}
				quoted(c)
			}
			if !closed {
				return nil, &Error{Offset: open, Reason: "a double quote is not closed"}
			}
		case '$', '`':
			return nil, refuse(i, "would be expanded by a shell and none runs here: write the value itself, or quote it with single quotes")
		case ';', '&', '|', '<', '>', '(', ')':
			return nil, refuse(i, "is a shell operator and no shell runs here: quote it")
		case '{':
			return nil, refuse(i, "would be brace-expanded by bash and is not here: write each word, or quote it")
		case '~', '#':
			if !in {
				if c == '~' {
					return nil, refuse(i, "starting a word is not expanded to a home directory here: write the path, or quote it")
				}
				return nil, refuse(i, "starting a word would begin a comment in a shell: quote it")
			}
			text.WriteByte(c)
			pat.WriteByte(c)
		default:
			in = true
			if c == '*' || c == '?' || c == '[' {
				glob = true
			}
			text.WriteByte(c)
			pat.WriteByte(c)
		}
	}
	end()
	return words, nil
}

// Texts are the words' Text.
func Texts(ws []Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

// Paths are the paths s names: its words, each pattern (a word with an
// unquoted *, ? or [) expanded with filepath.Glob; dflt when s has no
// word. A pattern that matches nothing is an error, as is **, which
// Glob would read as *: never a silent skip.
func Paths(s string, dflt ...string) ([]string, error) {
	ws, err := Split(s)
	if err != nil {
		return nil, err
	}
	if len(ws) == 0 {
		return dflt, nil
	}
	var paths []string
	for _, w := range ws {
		if !w.Glob {
			paths = append(paths, w.Text)
			continue
		}
		if strings.Contains(w.Pattern, "**") {
			return nil, fmt.Errorf("%s: ** is not expanded: name the directory, which check reads whole (and --exclude in args leaves out what it should not)", w.Text)
		}
		m, err := filepath.Glob(w.Pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", w.Text, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no file matches", w.Text)
		}
		paths = append(paths, m...)
	}
	return paths, nil
}
