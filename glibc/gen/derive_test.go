package main

import (
	"strings"
	"testing"

	"github.com/abifloor/abifloor/glibc"
)

// testArch is an x86_64 with two real releases, 2.31 and 2.36, and zig's
// word on where some versions were born.
func testArch(extra231, extra236 map[key]glibc.Export) *arch {
	e := func(name, version string, dflt bool) glibc.Export {
		return glibc.Export{Name: name, Version: version, Default: dflt, Kind: glibc.Func}
	}
	r231 := &release{version: "2.31", defs: map[key]glibc.Export{
		{"libpthread.so.0", "pthread_create", "GLIBC_2.2.5"}: e("pthread_create", "GLIBC_2.2.5", true),
		{"ld-linux-x86-64.so.2", "calloc", "GLIBC_2.2.5"}:    e("calloc", "GLIBC_2.2.5", true),
		{"libc.so.6", "malloc_get_state", "GLIBC_2.2.5"}:     e("malloc_get_state", "GLIBC_2.2.5", false),
		{"libc.so.6", "oldfn", "GLIBC_2.2.5"}:                e("oldfn", "GLIBC_2.2.5", false),
		{"libc.so.6", "memcpy", "GLIBC_2.2.5"}:               e("memcpy", "GLIBC_2.2.5", false),
		{"libc.so.6", "memcpy", "GLIBC_2.14"}:                e("memcpy", "GLIBC_2.14", true),
	}}
	r236 := &release{version: "2.36", defs: map[key]glibc.Export{
		{"libc.so.6", "pthread_create", "GLIBC_2.2.5"}: e("pthread_create", "GLIBC_2.2.5", false),
		{"libc.so.6", "pthread_create", "GLIBC_2.34"}:  e("pthread_create", "GLIBC_2.34", true),
		{"libc.so.6", "oldfn", "GLIBC_2.2.5"}:          e("oldfn", "GLIBC_2.2.5", false),
		{"libc.so.6", "memcpy", "GLIBC_2.2.5"}:         e("memcpy", "GLIBC_2.2.5", false),
		{"libc.so.6", "memcpy", "GLIBC_2.14"}:          e("memcpy", "GLIBC_2.14", true),
		{"libc.so.6", "stat", "GLIBC_2.33"}:            e("stat", "GLIBC_2.33", true),
		{"libc.so.6", "foo", "GLIBC_2.32"}:             e("foo", "GLIBC_2.32", true),
	}}
	for k, v := range extra231 {
		r231.defs[k] = v
	}
	for k, v := range extra236 {
		r236.defs[k] = v
	}
	return &arch{name: "x86_64", reads: []*release{r231, r236}, zigTop: "2.40",
		born: map[[2]string][]string{
			{"pthread_create", "GLIBC_2.2.5"}: {"libpthread.so.0"},
			{"foo", "GLIBC_2.32"}:             {"libpthread.so.0"},
			{"memcpy", "GLIBC_2.2.5"}:         {"libc.so.6"},
		}}
}

func TestDerive(t *testing.T) {
	a := testArch(nil, nil)
	got := map[string]string{}
	for _, d := range a.derive(a.releases()) {
		got[d.lib+" "+d.name+"@"+d.version] = spanText(d.in, d.version) + " " + spanText(d.defaultIn, d.version)
	}
	if len(a.errs) > 0 {
		t.Fatal(strings.Join(a.errs, "\n"))
	}
	for sym, want := range map[string]string{
		// moved into libc in 2.34
		"libpthread.so.0 pthread_create@GLIBC_2.2.5": "-2.34 -2.34",
		"libc.so.6 pthread_create@GLIBC_2.2.5":       "2.34- n",
		"libc.so.6 pthread_create@GLIBC_2.34":        "- -",
		// born in libpthread between the real releases (zig), in libc later
		"libpthread.so.0 foo@GLIBC_2.32": "-2.34 -2.34",
		"libc.so.6 foo@GLIBC_2.32":       "2.34- 2.34-",
		// ld.so's malloc
		"ld-linux-x86-64.so.2 calloc@GLIBC_2.2.5": "-2.32 -2.32",
		// compat-only: from the tabled release, else always; gone in 2.34
		"libc.so.6 malloc_get_state@GLIBC_2.2.5": "-2.34 -2.25",
		"libc.so.6 oldfn@GLIBC_2.2.5":            "- n",
		// a newer default takes over in its release
		"libc.so.6 memcpy@GLIBC_2.2.5": "- -2.14",
		"libc.so.6 memcpy@GLIBC_2.14":  "- -",
		"libc.so.6 stat@GLIBC_2.33":    "- -",
	} {
		if got[sym] != want {
			t.Errorf("%s: in/default %q, want %q", sym, got[sym], want)
		}
	}

	// A symbol that leaves ld.so by no known rule is an error, not a guess.
	odd := key{"ld-linux-x86-64.so.2", "_dl_odd", "GLIBC_2.2.5"}
	a = testArch(map[key]glibc.Export{odd: {Name: "_dl_odd", Version: "GLIBC_2.2.5", Kind: glibc.Func}}, nil)
	a.derive(a.releases())
	if len(a.errs) != 1 || !strings.Contains(a.errs[0], "_dl_odd@GLIBC_2.2.5 left ld-linux-x86-64.so.2") {
		t.Errorf("errors: %q", a.errs)
	}
}

func TestSpanText(t *testing.T) {
	for _, tt := range []struct {
		s       glibc.Span
		version string
		want    string
	}{
		{glibc.Span{}, "GLIBC_2.2.5", "-"},
		{glibc.Span{From: "2.2.5"}, "GLIBC_2.2.5", "-"},
		{glibc.Span{From: "2.34"}, "GLIBC_2.2.5", "2.34-"},
		{glibc.Span{Until: "2.34"}, "GLIBC_2.2.5", "-2.34"},
		{glibc.Span{From: "2.17", Until: "2.34"}, "GLIBC_2.2.5", "2.17-2.34"},
		{glibc.Never, "GLIBC_2.2.5", "n"},
	} {
		if got := spanText(tt.s, tt.version); got != tt.want {
			t.Errorf("spanText(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
