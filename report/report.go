// Package report turns results into text for people, JSON for tools and
// GitHub workflow annotations for CI. It owns output conventions (format
// names, colour rules, escaping) so every command renders the same way; it
// knows nothing of ELF or ABIs.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
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
//
// A top-level array of many elements (a scan's "files") is written one
// element at a time: encoding/json builds a whole document in memory, and
// then a second, indented copy, so 75 MB of names from a 900 KB archive
// cost 364 MB. The bytes are the same either way.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	shell, streamed := streamable(v)
	if len(streamed) == 0 {
		return enc.Encode(v)
	}
	var doc bytes.Buffer
	denc := json.NewEncoder(&doc)
	denc.SetEscapeHTML(false)
	denc.SetIndent("", "  ")
	if err := denc.Encode(shell); err != nil {
		return err
	}
	rest := doc.Bytes()
	var elem bytes.Buffer
	eenc := json.NewEncoder(&elem)
	eenc.SetEscapeHTML(false)
	eenc.SetIndent("    ", "  ")
	for _, f := range streamed {
		// A key at the top level is the only one after a newline and
		// exactly two spaces; a string holds no raw newline.
		key := []byte("\n  " + strconv.Quote(f.name) + ": []")
		i := bytes.Index(rest, key)
		if i < 0 {
			return fmt.Errorf("report: streaming %q: its place in the document was not found", f.name)
		}
		at := i + len(key) - 1 // the ']'
		if _, err := w.Write(rest[:at]); err != nil {
			return err
		}
		for j := 0; j < f.value.Len(); j++ {
			elem.Reset()
			if err := eenc.Encode(f.value.Index(j).Interface()); err != nil {
				return err
			}
			sep := ",\n    "
			if j == 0 {
				sep = "\n    "
			}
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
			if _, err := w.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n"))); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "\n  "); err != nil {
			return err
		}
		rest = rest[at:]
	}
	_, err := w.Write(rest)
	return err
}

// streamThreshold is the length from which a top-level array is streamed.
const streamThreshold = 256

type streamedField struct {
	name  string
	value reflect.Value // the slice
}

// streamable returns a copy of v, a struct or a pointer to one, whose
// long top-level slices (not omitempty: an empty one must keep its place
// as "[]") are empty, and those slices. Embedded structs are copied, not
// shared, so v itself is left as it was.
func streamable(v any) (any, []streamedField) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return v, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return v, nil
	}
	if _, ok := v.(json.Marshaler); ok {
		return v, nil
	}
	cp := reflect.New(rv.Type())
	cp.Elem().Set(rv)
	var out []streamedField
	emptyLong(cp.Elem(), &out)
	if len(out) == 0 {
		return v, nil
	}
	return cp.Interface(), out
}

func emptyLong(st reflect.Value, out *[]streamedField) {
	t := st.Type()
	for i := 0; i < t.NumField(); i++ {
		sf, fv := t.Field(i), st.Field(i)
		if !sf.IsExported() || !fv.CanSet() {
			continue // an unexported embedded struct is left whole
		}
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if sf.Anonymous && name == "" {
			// Promoted fields: copy the embedded struct, then look
			// inside the copy.
			switch {
			case fv.Kind() == reflect.Struct:
				emptyLong(fv, out)
			case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.Struct:
				inner := reflect.New(fv.Elem().Type())
				inner.Elem().Set(fv.Elem())
				fv.Set(inner)
				emptyLong(inner.Elem(), out)
			}
			continue
		}
		if fv.Kind() != reflect.Slice || fv.Len() < streamThreshold || strings.Contains(opts, "omitempty") || name == "" {
			continue
		}
		if fv.Type().Elem().Kind() == reflect.Uint8 {
			continue // []byte is a base64 string
		}
		// The slice header is copied before the field is emptied.
		*out = append(*out, streamedField{name: name, value: reflect.ValueOf(fv.Interface())})
		fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
	}
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
	Level string // error, warning or notice
	File  string
	// Line, when set with File, is the line of File (a source file).
	Line    int
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
			if a.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", a.Line))
			}
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
