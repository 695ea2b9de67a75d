package main

import (
	"testing"
	"unicode/utf8"
)

// TestArtefactStatus: the status line of a large artefact fits its width,
// shortening the member from the left; a small artefact has none. (Whether
// stderr is a terminal, which decides that it is shown, is not testable
// here: the tests' stderr is a pipe.)
func TestArtefactStatus(t *testing.T) {
	const mb = 1000 * 1000
	for _, tc := range []struct {
		art, member string
		read, total int64
		width       int
		want        string
	}{
		{"dir/libllvm19.deb", "/usr/lib/libLLVM.so.19.1", 37_200_000, 124 * mb, 79, "libllvm19.deb 37.2/124.0 MB /usr/lib/libLLVM.so.19.1"},
		{"small.whl", "/x.so", 1, 4<<20 - 1, 79, ""},
		{"a.tgz", "/package/very/long/path/lib.so", 0, 5 * mb, 30, "a.tgz 0.0/5.0 MB …/path/lib.so"},
		{"a.tgz", "/ünï/cødé.so", 5 * mb, 5 * mb, 26, "a.tgz 5.0/5.0 MB …/cødé.so"},
		{"a.tgz", "/x.so", 5 * mb, 5 * mb, 17, "a.tgz 5.0/5.0 MB"},
		{"a\x1b[2J.tgz", "/x\n.so", 5 * mb, 5 * mb, 79, `a\x1b[2J.tgz 5.0/5.0 MB /x\n.so`},
		{"long-name.tgz", "/x.so", 5 * mb, 5 * mb, 10, "5.0/5.0 MB"},
		{"img", "/blobs/sha256/0123[layer 2]!/usr/bin/prog", 1, 8 << 20, 79, "img 0.0/8.4 MB /blobs/sha256/0123[layer 2]!/usr/bin/prog"},
	} {
		got := artefactStatus(tc.art, tc.member, tc.read, tc.total, tc.width)
		if got != tc.want {
			t.Errorf("artefactStatus(%q, %q, %d, %d, %d) = %q, want %q", tc.art, tc.member, tc.read, tc.total, tc.width, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > tc.width {
			t.Errorf("%q: %d columns, more than %d", got, n, tc.width)
		}
	}
}
