// Package report turns results into text for people, JSON for tools and
// GitHub workflow annotations for CI. It owns output conventions (format
// names, colour rules, escaping) so every command renders the same way; it
// knows nothing of ELF or ABIs.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is an output format chosen with --format.
type Format string

const (
	Text   Format = "text"
	JSON   Format = "json"
	GitHub Format = "github"
	SARIF  Format = "sarif"
	JUnit  Format = "junit"
	// Markdown is a job summary ($GITHUB_STEP_SUMMARY): WriteMarkdown.
	Markdown Format = "markdown"
)

// ParseFormat checks s against the formats a command supports.
func ParseFormat(s string, allowed ...Format) (Format, error) {
	names := make([]string, len(allowed))
	for i, f := range allowed {
		if string(f) == s {
			return f, nil
		}
		names[i] = string(f)
	}
	// The value may come from a CI input: cleaned, not Go-quoted (%q
	// leaves "##[" as it is).
	return "", fmt.Errorf("unknown format \"%s\" (want %s)", Clean(s), strings.Join(names, ", "))
}

// WriteJSON writes v as indented JSON followed by a newline. HTML escaping
// is off: symbol names such as operator<< must stay readable.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// UseColor reports whether text output may be coloured: never when
// NO_COLOR is set to anything; always when
// FORCE_COLOR is set to anything but 0 or false (CI logs render colour
// though stdout is a pipe); else only on a terminal that is not dumb.
func UseColor(tty bool, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if f := getenv("FORCE_COLOR"); f != "" && f != "0" && f != "false" {
		return true
	}
	return tty && getenv("TERM") != "dumb"
}

// Painter wraps strings in ANSI colours when enabled.
type Painter struct{ On bool }

func (p Painter) paint(code, s string) string {
	if !p.On {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p Painter) Red(s string) string    { return p.paint("31", s) }
func (p Painter) Green(s string) string  { return p.paint("32", s) }
func (p Painter) Yellow(s string) string { return p.paint("33", s) }
func (p Painter) Bold(s string) string   { return p.paint("1", s) }

// Annotation is one GitHub workflow command (::error file=...::message).
type Annotation struct {
	Level   string // error, warning or notice
	File    string
	Title   string
	Message string
}

// WriteAnnotation writes a as a workflow command. The title and message
// are text for people: Clean escapes them (the message line by line, its
// newlines kept), then GitHub's own escapes apply (properties: %, CR,
// LF, ':' and ','; the message: %, CR, LF). The file is a path GitHub
// matches against the checkout, so it is written as it is, or, when
// Clean would change it (a control, bidirectional or invisible
// character, "##[", a name past MaxShown), not at all: the message then
// starts with the cleaned name. To a Guard, the line goes as a command.
func WriteAnnotation(w io.Writer, a Annotation) error {
	var props []string
	msg := CleanLines(a.Message)
	if a.File != "" {
		if f := Clean(a.File); f == a.File {
			props = append(props, "file="+escapeProp(a.File))
		} else {
			msg = f + ": " + msg
		}
	}
	if a.Title != "" {
		props = append(props, "title="+escapeProp(Clean(a.Title)))
	}
	line := fmt.Sprintf("::%s %s::%s\n", a.Level, strings.Join(props, ","), escapeData(msg))
	if cw, ok := w.(commandWriter); ok {
		return cw.WriteCommand(line)
	}
	_, err := io.WriteString(w, line)
	return err
}

var dataEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
var propEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")

func escapeData(s string) string { return dataEscaper.Replace(s) }
func escapeProp(s string) string { return propEscaper.Replace(s) }
