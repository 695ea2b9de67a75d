package glibc

import "testing"

func TestLookup(t *testing.T) {
	a, err := LoadArch("x86_64", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, target string
		w            Where
		ok           bool
	}{
		{"gai_cancel", "2.31", Where{Soname: "libanl.so.1", Version: "GLIBC_2.2.5"}, true},
		{"gai_cancel", "2.36", Where{Soname: "libc.so.6", Version: "GLIBC_2.34"}, true},
		{"arc4random", "2.17", Where{Newer: "GLIBC_2.36"}, true},
		{"pthread_create", "2.17", Where{Soname: "libpthread.so.0", Version: "GLIBC_2.2.5"}, true},
		{"memcpy", "2.17", Where{Soname: "libc.so.6", Version: "GLIBC_2.14"}, true},
		{"__res_query", "2.31", Where{Soname: "libresolv.so.2", Version: "GLIBC_2.2.5"}, true},
		{"no_such_function_x", "2.31", Where{}, false},
	} {
		w, ok := a.Lookup(tt.name, tt.target)
		if w != tt.w || ok != tt.ok {
			t.Errorf("Lookup(%s, %s) = %+v, %v; want %+v, %v", tt.name, tt.target, w, ok, tt.w, tt.ok)
		}
	}
}

func TestLinkFlag(t *testing.T) {
	for in, want := range map[string]string{
		"libanl.so.1": "-lanl", "libpthread.so.0": "-lpthread", "libc.so.6": "",
		"ld-linux-x86-64.so.2": "", "libBrokenLocale.so.1": "-lBrokenLocale",
	} {
		if got := LinkFlag(in); got != want {
			t.Errorf("LinkFlag(%s) = %q, want %q", in, got, want)
		}
	}
}
