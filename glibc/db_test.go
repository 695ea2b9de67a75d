package glibc

import (
	"bytes"
	"strings"
	"testing"
)

func TestSelectLib(t *testing.T) {
	lib := &Library{
		Soname:   "libc.so.6",
		Versions: []string{"GLIBC_2.2.5", "GLIBC_2.14", "GLIBC_2.34"},
		Defs: []Def{
			{Name: "memcpy", Version: "GLIBC_2.2.5", Kind: Func},
			{Name: "memcpy", Version: "GLIBC_2.14", Kind: Func, Default: true},
			{Name: "matherr", Version: "GLIBC_2.2.5", Kind: Func}, // compat only
			{Name: "pthread_create", Version: "GLIBC_2.2.5", Kind: Func, Since: "2.34"},
			{Name: "pthread_create", Version: "GLIBC_2.34", Kind: Func, Default: true},
			{Name: "old", Version: "GLIBC_2.2.5", Kind: Func, Default: true, Until: "2.14"},
		},
	}
	tests := []struct {
		target string
		want   string // sorted name@VER / name@@VER
	}{
		{"2.2.5", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.2.5 old@@GLIBC_2.2.5"},
		{"2.13", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.2.5 old@@GLIBC_2.2.5"},
		{"2.14", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.14 memcpy@GLIBC_2.2.5"},
		{"2.17", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.14 memcpy@GLIBC_2.2.5"},
		{"2.34", "matherr@GLIBC_2.2.5 memcpy@@GLIBC_2.14 memcpy@GLIBC_2.2.5 pthread_create@@GLIBC_2.34 pthread_create@GLIBC_2.2.5"},
	}
	for _, tt := range tests {
		s := SelectLib(lib, tt.target)
		var got []string
		for _, sym := range s.Syms {
			at := "@"
			if sym.IsDefault {
				at = "@@"
			}
			got = append(got, sym.Name+at+sym.Version)
		}
		sortStrings(got)
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("target %s:\n got %s\nwant %s", tt.target, g, tt.want)
		}
	}
	if s := SelectLib(lib, "2.13"); strings.Join(s.Versions, ",") != "GLIBC_2.2.5" {
		t.Errorf("versions at 2.13: %v", s.Versions)
	}
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
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
		if _, err := a.Check("2.36"); err != nil {
			t.Errorf("%s: %v", arch, err)
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
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"X\tfoo\n",
		"A\tx86_64\tt\n",
		"L\tx86_64\tlibc.so.6\tGLIBC_2.2.5\n",
		"A\tx\tt\tld\nL\tx\tlibc.so.6\tGLIBC_PRIVATE\n",
		"A\tx\tt\tld\nL\tx\tlibc.so.6\tGLIBC_2.2.5\nS\tx\tlibc.so.6\tm\tGLIBC_2.2.5\td\tQ\t0\t-\t-\t-\n",
		"A\tx\tt\tld\nL\tx\tlibc.so.6\tGLIBC_2.2.5\nS\tx\tlibc.so.6\tm\tGLIBC_2.2.5\td\tF\t-1\t-\t-\t-\n",
		"A\tx\tt\tld\nL\tx\tlibm.so.6\tGLIBC_2.2.5\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
	ok := "A\tx\tt\tld\nL\tx\tlibc.so.6\tGLIBC_2.2.5\nS\tx\tlibc.so.6\tm\tGLIBC_2.2.5\td\tF\t0\t-\t2.34\t-\n"
	if _, err := Parse(strings.NewReader(ok)); err != nil {
		t.Errorf("Parse(ok): %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("A\tx\tt\tld\nL\tx\tlibc.so.6\tGLIBC_2.2.5\nS\tx\tlibc.so.6\tm\tGLIBC_2.2.5\td\tF\t0\t-\t2.34\t1.10\n"))
	f.Add([]byte("# c\nA\tx\tt\tld\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
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
