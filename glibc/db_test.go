package glibc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSelectLib(t *testing.T) {
	lib := &Library{
		Soname:   "libc.so.6",
		Versions: []string{"GLIBC_2.2.5", "GLIBC_2.14", "GLIBC_2.34"},
		Defs: []Def{
			{Name: "memcpy", Version: "GLIBC_2.2.5", Kind: Func, DefaultIn: Span{Until: "2.14"}},
			{Name: "memcpy", Version: "GLIBC_2.14", Kind: Func},
			{Name: "matherr", Version: "GLIBC_2.2.5", Kind: Func, DefaultIn: Span{Until: "2.27"}},
			{Name: "pthread_create", Version: "GLIBC_2.2.5", Kind: Func, In: Span{From: "2.34"}, DefaultIn: Never},
			{Name: "pthread_create", Version: "GLIBC_2.34", Kind: Func},
			{Name: "old", Version: "GLIBC_2.2.5", Kind: Func, In: Span{Until: "2.14"}, DefaultIn: Span{Until: "2.14"}},
		},
	}
	tests := []struct {
		target string
		want   string // sorted name@VER / name@@VER
	}{
		{"2.2.5", "matherr@@GLIBC_2.2.5 memcpy@@GLIBC_2.2.5 old@@GLIBC_2.2.5"},
		{"2.13", "matherr@@GLIBC_2.2.5 memcpy@@GLIBC_2.2.5 old@@GLIBC_2.2.5"},
		{"2.14", "matherr@@GLIBC_2.2.5 memcpy@@GLIBC_2.14 memcpy@GLIBC_2.2.5"},
		{"2.27", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.14 memcpy@GLIBC_2.2.5"},
		{"2.34", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.14 memcpy@GLIBC_2.2.5 pthread_create@@GLIBC_2.34 pthread_create@GLIBC_2.2.5"},
	}
	for _, tt := range tests {
		if g := strings.Join(stubStrings(selectLib(lib, tt.target)), " "); g != tt.want {
			t.Errorf("target %s:\n got %s\nwant %s", tt.target, g, tt.want)
		}
	}
	if s := selectLib(lib, "2.13"); strings.Join(s.Versions, ",") != "GLIBC_2.2.5" {
		t.Errorf("versions at 2.13: %v", s.Versions)
	}
}

func TestSpan(t *testing.T) {
	for _, tt := range []struct {
		s     Span
		in    []string
		notIn []string
	}{
		{Span{}, []string{"2.0", "2.41"}, nil},
		{Span{Until: "2.34"}, []string{"2.17", "2.33"}, []string{"2.34", "2.41"}},
		{Span{From: "2.17", Until: "2.34"}, []string{"2.17", "2.33"}, []string{"2.16", "2.2.5", "2.34"}},
		{Never, nil, []string{"0", "2.17", "2.41"}},
	} {
		for _, r := range tt.in {
			if !tt.s.Has(r) {
				t.Errorf("%+v lacks %s", tt.s, r)
			}
		}
		for _, r := range tt.notIn {
			if tt.s.Has(r) {
				t.Errorf("%+v has %s", tt.s, r)
			}
		}
	}
}

// stubStrings writes a stub's symbols as lib-less name@VER / name@@VER,
// sorted.
func stubStrings(s StubLib) []string {
	var out []string
	for _, sym := range s.Syms {
		at := "@"
		if sym.Default {
			at = "@@"
		}
		out = append(out, sym.Name+at+sym.Version)
	}
	slices.Sort(out)
	return out
}

func TestEmbedded(t *testing.T) {
	db, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for arch, first := range map[string]string{"x86_64": "2.2.5", "aarch64": "2.17", "i686": "2.0", "s390x": "2.2"} {
		a, err := db.Arch(arch)
		if err != nil {
			t.Fatal(err)
		}
		if a.First != first {
			t.Errorf("%s: first version %s, want %s", arch, a.First, first)
		}
		for _, r := range []string{"2.17", "2.36"} {
			if _, err := a.Check(r); err != nil {
				t.Errorf("%s: %v", arch, err)
			}
		}
	}
	a, _ := db.Arch("aarch64")
	if _, err := a.Check("2.16"); err == nil || !strings.Contains(err.Error(), "first glibc version of aarch64, 2.17") {
		t.Errorf("aarch64 2.16: %v", err)
	}
	for _, bad := range []string{"", "banana", "9.99"} {
		if _, err := a.Check(bad); err == nil {
			t.Errorf("Check(%q) accepted", bad)
		}
	}
	if _, err := db.Arch("mips"); err == nil || !strings.Contains(err.Error(), "x86_64") {
		t.Errorf("unknown arch: %v", err)
	}
	// Each Load is a copy of its own: changing one changes no other.
	a.Libs = nil
	db2, _ := Load()
	if a2, _ := db2.Arch("aarch64"); len(a2.Libs) == 0 {
		t.Error("a change to one loaded database shows in the next")
	}
	// LoadArch names every architecture in its error.
	if _, err := LoadArch("mips", false); err == nil || !strings.Contains(err.Error(), "s390x") {
		t.Errorf("LoadArch(mips): %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	const head = "A\tx\tt\tld\t2.41\nL\tx\tlibc.so.6\tGLIBC_2.2.5\n"
	for _, in := range []string{
		"",
		"X\tfoo\n",
		"A\tx86_64\tt\n",
		"A\tx86_64\tt\tld\n",
		"A\tx\tt\tld\tnew\n",
		"L\tx86_64\tlibc.so.6\tGLIBC_2.2.5\n",
		"A\tx\tt\tld\t2.41\nL\tx\tlibc.so.6\tGLIBC_PRIVATE\n",
		head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\t-\tQ\t0\t-\t-\t-\n",
		head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\t-\tF\t-1\t-\t-\t-\n",
		head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\tz\tF\t0\t-\t-\t-\n",
		head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\t-\tF\t0\t2.34-2.17\t-\t-\n",
		head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\t-\tF\t0\t-\tx-\t-\n",
		head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\t-\tF\t0\t2.34\t-\t-\n",
		"A\tx\tt\tld\t2.41\nL\tx\tlibm.so.6\tGLIBC_2.2.5\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		} else if in != "" && !strings.Contains(err.Error(), "line ") && !strings.Contains(err.Error(), "has no libc") {
			t.Errorf("Parse(%q): error names no line: %v", in, err)
		}
	}
	ok := head + "S\tx\tlibc.so.6\tm\tGLIBC_2.2.5\tw\tF\t0\t-2.34\tn\t-\n"
	db, err := Parse(strings.NewReader(ok))
	if err != nil {
		t.Fatalf("Parse(ok): %v", err)
	}
	d := db.Arches["x"].Libs[0].Defs[0]
	if d.In != (Span{Until: "2.34"}) || !d.DefaultIn.Empty() || !d.Weak {
		t.Errorf("parsed %+v", d)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("A\tx\tt\tld\t2.41\nL\tx\tlibc.so.6\tGLIBC_2.2.5\nS\tx\tlibc.so.6\tm\tGLIBC_2.2.5\t-\tF\t0\t-2.34\tn\t1.10\n"))
	f.Add([]byte("# c\nA\tx\tt\tld\t2.17\n"))
	f.Add([]byte("A\tx\tt\tld\t2.17\nL\nS\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// LoadArch's partial reads take other paths through the lines.
		parse(bytes.NewReader(b), "x", false)
		parse(bytes.NewReader(b), "x", true)
		db, err := Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, a := range db.Arches {
			a.Select(a.First)
			a.Select(a.Newest)
		}
	})
}

// A partial read (LoadArch) of a record too short to name an architecture
// is an error, not a panic.
func TestParsePartialShortRecord(t *testing.T) {
	for _, in := range []string{"A\tx\tt\tld\t2.17\nL\n", "A\tx\tt\tld\t2.17\nS\n"} {
		if _, err := parse(strings.NewReader(in), "x", true); err == nil {
			t.Errorf("parse(%q) = nil error", in)
		}
	}
}

// Many architecture records cost linear time: the check for one listed
// twice is a set, not a walk over those read so far (200000 records took
// minutes with the walk).
func TestParseManyArches(t *testing.T) {
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "A\ta%d\tt\tld\t2.17\n", i)
	}
	done := make(chan error, 1)
	go func() { _, err := Parse(strings.NewReader(b.String())); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no libc.so.6") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Parse of 200000 architecture records did not finish in a minute")
	}
}

// Every name elfx.ParseArch reads selects the same architecture here
// (issue 29, item 11: `stubs --arch amd64` was refused).
func TestArchNames(t *testing.T) {
	db, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"x86_64", "x86_64"}, {"amd64", "x86_64"}, {"AMD64", "x86_64"},
		{"aarch64", "aarch64"}, {"arm64", "aarch64"},
		{"i686", "i386"}, {"i386", "i386"}, {"386", "i386"},
		{"s390x", "s390x"},
	} {
		a, err := db.Arch(tc.name)
		if err != nil || a.Name != tc.want {
			t.Errorf("Arch(%q) = %v, %v; want %s", tc.name, a, err, tc.want)
			continue
		}
		if la, err := LoadArch(tc.name, false); err != nil || la.Name != tc.want {
			t.Errorf("LoadArch(%q) = %v, %v; want %s", tc.name, la, err, tc.want)
		}
	}
	if _, err := db.Arch("vax"); err == nil {
		t.Error("Arch(vax): no error")
	}
}

// Load returns the whole embedded database, a new copy on each call.
func Load() (*DB, error) {
	zr, err := gzip.NewReader(bytes.NewReader(embedded))
	if err != nil {
		return nil, fmt.Errorf("glibc: embedded database: %w", err)
	}
	db, err := Parse(zr)
	if err != nil {
		return nil, fmt.Errorf("glibc: embedded database: %w", err)
	}
	return db, nil
}
