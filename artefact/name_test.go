package artefact

import (
	"strings"
	"testing"
)

func TestJoinSplit(t *testing.T) {
	files := map[string]bool{"/a/pkg.deb": true, "/odd!/x.tgz": true}
	is := func(a string) bool { return files[a] }
	for _, c := range []struct{ name, a, member string }{
		{Join("/a/pkg.deb", "/usr/bin/ls"), "/a/pkg.deb", "/usr/bin/ls"},
		{Join(Join("/a/pkg.deb", "/in.tgz"), "/lib/x.so"), "/a/pkg.deb", "/in.tgz!/lib/x.so"},
		{Join("/odd!/x.tgz", "lib//y.so"), "/odd!/x.tgz", "/lib/y.so"},
		{"/a/pkg.deb!/../../etc/passwd", "/a/pkg.deb", "/etc/passwd"},
	} {
		a, m, ok := Split(c.name, is)
		if !ok || a != c.a || m != c.member {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q", c.name, a, m, ok, c.a, c.member)
		}
	}
	if _, _, ok := Split("/a/other!/x", is); ok {
		t.Errorf("Split accepted a name with no artefact")
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("/a!/b!/c", "/a")
	f.Fuzz(func(t *testing.T, name, a string) {
		got, m, ok := Split(name, func(s string) bool { return s == a })
		if ok && (got != a || !strings.HasPrefix(m, "/") || !strings.HasPrefix(name, a+"!/")) {
			t.Fatalf("Split(%q) = %q, %q", name, got, m)
		}
	})
}
