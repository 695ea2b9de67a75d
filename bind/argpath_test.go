package bind

import (
	"os"
	"path/filepath"
	"testing"
)

func TestArgPath(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "img")
	for _, d := range []string{"img/usr/bin", "img/etc"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "usr/bin/app"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"usr/bin/up": "../../../../../../usr/bin/app", "usr/bin/abs": "/usr/bin/app", "etc/loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	app := filepath.Join(root, "usr/bin/app")
	for _, tc := range []struct{ arg, want string }{
		{"/usr/bin/app", app},
		{"usr/bin/app", app},     // relative to the root
		{"img/usr/bin/app", app}, // inside the root from the working directory
		{"./img/../img/usr/bin/app", app},
		{"/usr/bin/up", app},          // a link climbing out stays inside
		{"/usr/bin/abs", app},         // an absolute link starts at the root
		{"../../../usr/bin/app", app}, // ".." stops at the root
		{"/usr/bin/missing", filepath.Join(root, "usr/bin/missing")},
		{"/etc/loop/x", ""},
		{"/nodir/app", ""},
	} {
		got, err := ArgPath(root, tc.arg)
		if tc.want == "" {
			if err == nil {
				t.Errorf("ArgPath(%q) = %q, want an error", tc.arg, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ArgPath(%q) = %q, %v; want %q", tc.arg, got, err, tc.want)
		}
	}
}
