package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// ParseError is why a flag set refused its arguments, as values: the
// flag, and whether it is unknown, lacks its value, or refused the value
// given (Err, its Set's error).
type ParseError struct {
	Flag    string // without dashes
	Unknown bool
	Missing bool
	Value   string // the value refused, when Err is set
	Err     error
	// near is what an unknown flag's "did you mean" says; placeholder
	// the word for a missing value.
	near, placeholder string
	isBool            bool
}

func (e *ParseError) Error() string {
	name := FlagName(e.Flag)
	switch {
	case e.Unknown:
		return "unknown flag " + name + e.near
	case e.Missing:
		return fmt.Sprintf("%s needs a value: %s %s", name, name, e.placeholder)
	}
	if e.isBool {
		// As the flag package says it.
		return fmt.Sprintf("invalid boolean value %q for -%s: %v", e.Value, e.Flag, e.Err)
	}
	return fmt.Sprintf("invalid value %q for flag %s: %v", e.Value, name, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// watched is a flag's value while Parse runs: it keeps the first value
// its Set refused, with the flag's name.
type watched struct {
	flag.Value
	name string
	bad  **ParseError
}

func (w *watched) Set(v string) error {
	err := w.Value.Set(v)
	if err != nil && *w.bad == nil {
		*w.bad = &ParseError{Flag: w.name, Value: v, Err: err, isBool: w.IsBoolFlag()}
	}
	return err
}

func (w *watched) IsBoolFlag() bool {
	b, ok := w.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Parse is fs.Parse returning a *ParseError for a flag it refused
// (synopsis, the command's usage line, names a missing value's
// placeholder). flag.ErrHelp, and the flag package's own error for
// arguments that are malformed otherwise ("bad flag syntax"), pass as
// they are.
func Parse(fs *flag.FlagSet, args []string, synopsis string) error {
	var bad *ParseError
	fs.VisitAll(func(f *flag.Flag) { f.Value = &watched{Value: f.Value, name: f.Name, bad: &bad} })
	err := fs.Parse(args)
	fs.VisitAll(func(f *flag.Flag) { f.Value = f.Value.(*watched).Value })
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return err
	case bad != nil:
		return bad
	}
	// The flag package stops just past the flag it refused.
	consumed := len(args) - len(fs.Args())
	if consumed < 1 {
		return err
	}
	tok := args[consumed-1]
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(tok, "-"), "-"), "=")
	if !strings.HasPrefix(tok, "-") || name == "" || strings.HasPrefix(name, "-") {
		return err
	}
	f := fs.Lookup(name)
	if f == nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		return &ParseError{Flag: name, Unknown: true, near: DidYouMean(name, names, FlagName)}
	}
	return &ParseError{Flag: name, Missing: true, placeholder: Placeholder(f, synopsis)}
}
