package cli

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	names := []string{"scan", "check", "fit", "bind", "ranges"}
	for s, want := range map[string][]string{"scna": {"scan"}, "chek": {"check"}, "ran": {"ranges"}, "zzzz": nil} {
		if got := Nearest(s, names); !slices.Equal(got, want) {
			t.Errorf("Nearest(%q) = %q, want %q", s, got, want)
		}
	}
	if got := DidYouMean("maxx", []string{"max", "j"}, FlagName); got != "; did you mean --max?" {
		t.Errorf("DidYouMean: %q", got)
	}
}

func TestPlaceholder(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("max", "", "highest allowed version")
	fs.Int("j", 0, "jobs")
	fs.String("image", "", "an image")
	fs.String("cache-dir", "", "where the cache goes, a `DIR`")
	fs.Bool("why", false, "say why")
	syn := "[--max NS=VER]... [--image IMAGE] PATH..."
	for name, want := range map[string]string{"max": "NS=VER", "j": "N", "image": "IMAGE", "cache-dir": "DIR", "why": ""} {
		if got := Placeholder(fs.Lookup(name), syn); got != want {
			t.Errorf("Placeholder(%s) = %q, want %q", name, got, want)
		}
	}
	if got := FormatValues("output `format`: text, json, github or sarif (default text)"); !slices.Equal(got, []string{"text", "json", "github", "sarif"}) {
		t.Errorf("FormatValues: %q", got)
	}
}

// TestParse: a refused flag is a *ParseError naming it as the usage
// spells it; the flags keep their own values after the parse.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--maxx", "1"}, "unknown flag --maxx; did you mean --max?"},
		{[]string{"--max"}, "--max needs a value: --max NS=VER"},
		{[]string{"-j", "x"}, `invalid value "x" for flag -j: parse error`},
		{[]string{"--why=maybe"}, `invalid boolean value "maybe" for -why: parse error`},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("max", "", "highest allowed version")
		fs.Int("j", 0, "jobs")
		fs.Bool("why", false, "say why")
		err := Parse(fs, c.args, "[--max NS=VER]...")
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.args, err, c.want)
		}
		if _, ok := fs.Lookup("j").Value.(flag.Getter); !ok {
			t.Errorf("%q: -j's value is still wrapped", c.args)
		}
	}
}

// FuzzParse: whatever the arguments, Parse does not panic, leaves every
// flag its own value, and a refusal it explains names a flag.
func FuzzParse(f *testing.F) {
	f.Add("--maxx\x001")
	f.Add("-j\x00x\x00--why=maybe\x00--\x00-z")
	f.Add("---x\x00-\x00--max")
	f.Fuzz(func(t *testing.T, s string) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("max", "", "highest allowed version")
		fs.Int("j", 0, "jobs")
		fs.Bool("why", false, "say why")
		var sz Size
		fs.Var(&sz, "max-memory", "a size")
		err := Parse(fs, strings.Split(s, "\x00"), "[--max NS=VER]...")
		var pe *ParseError
		if errors.As(err, &pe) && (pe.Flag == "" || pe.Error() == "") {
			t.Errorf("%q: %#v", s, pe)
		}
		fs.VisitAll(func(f *flag.Flag) {
			if _, ok := f.Value.(*watched); ok {
				t.Errorf("%q: --%s is still watched", s, f.Name)
			}
		})
	})
}
