package glibc

import "testing"

// TestRedirects: the redirects come from the database: fcntl64 at 2.17 is
// fcntl (x86_64 only), res_search is libresolv's __res_search before 2.34
// and nothing at 2.34, and the C23 names before 2.38 are the plain ones.
func TestRedirects(t *testing.T) {
	for _, tt := range []struct {
		arch, target string
		want         map[string]Redirect
		absent       []string
	}{
		{"x86_64", "2.17", map[string]Redirect{
			"fcntl64":         {From: "fcntl64", To: "fcntl", Soname: "libc.so.6", Version: "GLIBC_2.2.5"},
			"res_search":      {From: "res_search", To: "__res_search", Soname: "libresolv.so.2", Version: "GLIBC_2.2.5"},
			"__isoc23_strtol": {From: "__isoc23_strtol", To: "strtol", Soname: "libc.so.6", Version: "GLIBC_2.2.5"},
			"__isoc23_sscanf": {From: "__isoc23_sscanf", To: "sscanf", Soname: "libc.so.6", Version: "GLIBC_2.2.5"},
		}, nil},
		{"x86_64", "2.34", map[string]Redirect{"__isoc23_strtol": {From: "__isoc23_strtol", To: "strtol", Soname: "libc.so.6", Version: "GLIBC_2.2.5"}}, []string{"res_search", "fcntl64"}},
		{"x86_64", "2.41", nil, []string{"__isoc23_strtol", "res_search", "fcntl64"}},
		{"i386", "2.17", nil, []string{"fcntl64"}},
	} {
		a, err := LoadArch(tt.arch, true)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Redirect{}
		for _, r := range a.Redirects(tt.target) {
			got[r.From] = r
		}
		for from, w := range tt.want {
			if got[from] != w {
				t.Errorf("%s %s: redirect of %s = %+v, want %+v", tt.arch, tt.target, from, got[from], w)
			}
		}
		for _, n := range tt.absent {
			if r, ok := got[n]; ok {
				t.Errorf("%s %s: %s redirected (%+v), want not", tt.arch, tt.target, n, r)
			}
		}
	}
}
