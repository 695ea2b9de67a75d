package report

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Names in abifloor's output come from its inputs: a file or member
// name, a DT_NEEDED entry, a symbol or version name, a type from a
// stranger's ABI JSON. Whoever made the input chose them, so the text
// around them must not let them act on the reader:
//
//   - on a terminal, a control character (ESC) drives the screen;
//   - in a CI log, the GitHub Actions runner reads every line of stdout
//     and stderr as a possible workflow command: a line whose first
//     characters after Unicode white space are "::" (::add-mask::,
//     ::error::, ::stop-commands::), and a line holding "##[" anywhere
//     (the legacy form). It splits lines at CR as well as LF, and .NET
//     compares the prefixes culture-sensitively, so characters the
//     collation ignores (NUL and other controls, soft hyphen, zero-width
//     joiners, variation selectors) may sit inside "::" or "##[";
//   - wherever text is displayed, bidirectional controls reorder it
//     ("x\u202efdp.so" shows as "xos.pdf") and U+2028/U+2029 break it;
//   - a name of a megabyte, printed at each mention, makes output a
//     thousand times the input.
//
// Clean is the one escaper of human-readable text: every format's
// names, messages, titles and test names go through it. Guard is the
// backstop on abifloor's stdout and stderr: a line that would still be a
// workflow command is neutralised there, so a path that forgot Clean
// cannot forge one; tests count what Guard had to do.

// MaxShown is the most bytes of one string Clean shows: PATH_MAX, the
// longest path the kernel takes. A longer string is shortened in its
// middle and its length stated.
const MaxShown = 4096

// The escapes that neutralise a workflow command: a ':' that starts a
// line and the '[' of "##[". They are both Go's and JSON's escapes of
// the character, so a JSON document stays the same document.
const (
	escColon   = `\u003a`
	escBracket = `\u005b`
)

// Clean makes a string taken from an input safe to print as one line of
// text, and bounded. Control characters are written as Go escapes (\n,
// \t, \x1b, \u009b), as are bytes that are not UTF-8, bidirectional
// controls, line and paragraph separators, and the other characters a
// reader cannot see (format characters such as U+00AD and U+200B,
// variation selectors, noncharacters). A ':' after only white space at
// the start is written \u003a, and the '[' of "##[" \u005b, so the string
// cannot be a workflow command wherever on its line it lands. A string
// longer than MaxShown keeps its first and last bytes around
// "…(N bytes)…", N its length. Everything else, backslashes included, is
// printed as it is, so ordinary names (std::ostream, operator<<, naïve)
// read unchanged.
func Clean(s string) string {
	if len(s) <= MaxShown && plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), MaxShown) + 16)
	head, tail := s, ""
	if len(s) > MaxShown {
		head, tail = s[:runeCut(s, MaxShown/2)], s[runeCut(s, len(s)-MaxShown/4):]
	}
	e := escaper{atStart: true}
	e.clean(&b, head)
	if tail != "" {
		b.WriteString("…(" + strconv.Itoa(len(s)) + " bytes)…")
		e.clean(&b, tail)
	}
	return b.String()
}

// CleanLines is Clean of each line of a message of several lines: the
// newlines stay, so the message keeps its shape, and every line is safe
// (and bounded) on its own. A CR is escaped, not a line end.
func CleanLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Clean(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return strings.Join(lines, "\n")
}

// runeCut moves i back to the start of a UTF-8 sequence, so shortening
// does not cut a character in two (at most 3 bytes back).
func runeCut(s string, i int) int {
	for j := 0; j < utf8.UTFMax-1 && i > 0 && !utf8.RuneStart(s[i]); j++ {
		i--
	}
	return i
}

// plain reports whether Clean leaves s as it is: printable ASCII without
// a leading ':' or "##[", or other text with nothing to escape. Most
// names are plain, and cost one pass.
func plain(s string) bool {
	hashes := 0
	start := true
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			switch {
			case start && c == ' ':
			case start && c == ':', c == '[' && hashes >= 2:
				return false
			default:
				start = false
			}
			if c == '#' {
				hashes++
			} else {
				hashes = 0
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			return false
		}
		start = start && unicode.IsSpace(r)
		hashes = 0
		i += n
	}
	return true
}

// escaper is the state of Clean across a string: whether only white
// space has been written since the start (where a ':' would begin a
// command), and how many '#' were just written.
type escaper struct {
	atStart bool
	hashes  int
}

func (e *escaper) clean(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case needsEscape(r, n):
			writeEscape(b, s[i], r, n)
			e.atStart, e.hashes = false, 0
		case e.atStart && r == ':':
			b.WriteString(escColon)
			e.atStart = false
		case r == '[' && e.hashes >= 2:
			b.WriteString(escBracket)
			e.hashes = 0
		default:
			b.WriteString(s[i : i+n])
			e.atStart = e.atStart && unicode.IsSpace(r)
			if r == '#' {
				e.hashes++
			} else {
				e.hashes = 0
			}
		}
		i += n
	}
}

// writeEscape writes rune r (n bytes, first byte c) as a Go escape.
func writeEscape(b *strings.Builder, c byte, r rune, n int) {
	switch {
	case r == utf8.RuneError && n <= 1:
		b.WriteString(`\x`)
		b.WriteString(hex2(c))
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
}

// needsEscape reports whether the rune r (n bytes long in the input) must
// not reach a reader as it is: it is not UTF-8, a control, or a character
// that is invisible or changes how the line around it is shown or split.
func needsEscape(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true // not UTF-8
	case r < 0x20 || r == 0x7f:
		return true // C0 controls, DEL
	case r < 0xa0:
		return r >= 0x80 // C1 controls: U+009B is CSI on some terminals
	case r == 0x2028 || r == 0x2029:
		return true // line and paragraph separators
	case r&0xfffe == 0xfffe || r >= 0xfdd0 && r <= 0xfdef:
		return true // noncharacters (XML refuses U+FFFE and U+FFFF)
	}
	// Format characters hold the bidirectional controls (U+202A-U+202E,
	// U+2066-U+2069, U+200E/F, U+061C) and the zero-width ones; with the
	// variation selectors and the other default-ignorable code points
	// they are what a collation skips, and what a reader does not see.
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// Guard is the last line of defence of a stream a CI runner reads
// (abifloor's stdout and stderr): whatever is written through it, no line
// of its output is a workflow command or holds a raw bidirectional
// control, invisible character or line separator. It follows the
// runner's rules across writes (a line ends at LF or CR; ASCII controls,
// which the runner's collation ignores, are passed on but do not end the
// white space at a line's start nor separate the '#' of "##["), and
// writes what it neutralises with the escapes Clean uses, in a form that
// is also a JSON escape of the same character: a JSON document written
// through it decodes to the same values. Painted text (ESC [) and
// progress lines (CR) pass unchanged.
//
// Writers escape their own fields with Clean, so Guard has nothing to do
// on their output; Neutralised counts what it did, for tests to find a
// path that forgot. Lines that are meant to be commands (annotations)
// are written with WriteCommand.
type Guard struct {
	w       io.Writer
	atStart bool
	hashes  int
	pending []byte // an incomplete UTF-8 sequence ending the last Write
	buf     []byte
	acted   int
	cmds    int
}

// NewGuard returns a Guard writing to w.
func NewGuard(w io.Writer) *Guard { return &Guard{w: w, atStart: true} }

// Neutralised is how many characters the guard has escaped.
func (g *Guard) Neutralised() int { return g.acted }

// Commands is how many lines WriteCommand has written.
func (g *Guard) Commands() int { return g.cmds }

// commandWriter is what WriteAnnotation writes a workflow command to when
// its writer is a Guard (or passes commands on to one).
type commandWriter interface {
	WriteCommand(line string) error
}

// WriteCommand writes line, one line ending in "\n" that the caller made a
// workflow command on purpose, as it is. A line with another line end in
// it is written as any text is.
func (g *Guard) WriteCommand(line string) error {
	body, ok := strings.CutSuffix(line, "\n")
	if !ok || strings.ContainsAny(body, "\r\n") || !g.atStart || len(g.pending) > 0 {
		_, err := io.WriteString(g, line)
		return err
	}
	g.cmds++
	_, err := io.WriteString(g.w, line)
	return err
}

// Flush writes an incomplete UTF-8 sequence held from the last Write, as
// escapes: the stream ended inside a character.
func (g *Guard) Flush() error {
	if len(g.pending) == 0 {
		return nil
	}
	g.buf = g.buf[:0]
	for _, c := range g.pending {
		g.buf = append(g.buf, `\x`+hex2(c)...)
		g.acted++
	}
	g.pending = g.pending[:0]
	g.atStart, g.hashes = false, 0
	_, err := g.w.Write(g.buf)
	return err
}

func (g *Guard) Write(p []byte) (int, error) {
	in := p
	if len(g.pending) > 0 {
		in = append(append([]byte(nil), g.pending...), p...)
		g.pending = g.pending[:0]
	}
	out := g.buf[:0]
	done := 0 // in[done:i] is still to be copied as it is
	i := 0
	for i < len(in) {
		c := in[i]
		if c < 0x80 {
			var esc string
			switch {
			case c == '\n' || c == '\r':
				g.atStart, g.hashes = true, 0
			case c < 0x20 || c == 0x7f:
				// passed on, and ignored as the runner's collation does
			case g.atStart && c == ' ':
			case g.atStart && c == ':':
				esc = escColon
			case c == '[' && g.hashes >= 2:
				esc = escBracket
			case c == '#':
				g.atStart = false
				g.hashes++
			default:
				g.atStart, g.hashes = false, 0
			}
			if esc != "" {
				out = append(append(out, in[done:i]...), esc...)
				g.acted++
				g.atStart, g.hashes = false, 0
				done = i + 1
			}
			i++
			continue
		}
		if !utf8.FullRune(in[i:]) {
			g.pending = append(g.pending, in[i:]...)
			break
		}
		r, n := utf8.DecodeRune(in[i:])
		if needsEscape(r, n) {
			out = append(out, in[done:i]...)
			out = appendJSONEscape(out, in[i], r, n)
			g.acted++
			g.atStart, g.hashes = false, 0
			done = i + n
		} else {
			g.atStart = g.atStart && unicode.IsSpace(r)
			g.hashes = 0
		}
		i += n
	}
	end := i
	if len(g.pending) > 0 {
		end = len(in) - len(g.pending)
	}
	out = append(out, in[done:end]...)
	g.buf = out[:0]
	if _, err := g.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendJSONEscape appends rune r (n bytes, first byte c) as an escape
// that Go and JSON both read as r: \u202e, or a surrogate pair beyond the
// BMP. A byte that is not UTF-8 (which a JSON encoder never writes) is
// \xff, as Clean writes it.
func appendJSONEscape(out []byte, c byte, r rune, n int) []byte {
	if r == utf8.RuneError && n <= 1 {
		return append(out, `\x`+hex2(c)...)
	}
	if r > 0xffff {
		r1, r2 := utf16.EncodeRune(r)
		return append(out, `\u`+hex4(r1)+`\u`+hex4(r2)...)
	}
	return append(out, `\u`+hex4(r)...)
}

func hex4(r rune) string {
	return hex2(byte(r>>8)) + hex2(byte(r))
}
