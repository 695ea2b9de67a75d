package cli

import (
	"flag"
	"slices"
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
