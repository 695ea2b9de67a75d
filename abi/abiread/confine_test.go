package abiread

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// A confined compile shows a diagnostic only when it is located in its
// tree, a system header or its own translation unit; a file name that
// spells a location of the tree does not pass for one (issue 28, item 6).
func TestKeepLine(t *testing.T) {
	c := &confinement{root: "/r", system: []string{"/usr/include"}, tu: "/t/abifloor.c"}
	for line, want := range map[string]bool{
		"/r/inc/a.h:3:1: error: unknown type name ‘x’":                         true,
		"/r/inc/a.h:3: error: x":                                               true,
		"/r/inc/sub/../b.h:3:1: note: previous definition":                     true,
		"/t/abifloor.c:3: error: expected ‘;’":                                 true,
		"/usr/include/stdio.h:5:1: note: previous declaration":                 true,
		"cc1: fatal error: a.h: No such file or directory":                     true,
		"/s/secret:1:1: error: unknown type name ‘key’":                        false,
		"/r/inc/../../s/secret:1:1: error: unknown type name ‘key’":            false,
		"/usr/include/../../s/secret:1:1: error: ‘key’":                        false,
		"/r/inc/a.h:1:1: error: x/../../../s/secret:1:1: error: ‘key’":         false,
		"/r/inc/a.h:1:/../../../s/secret:1:1: error: ‘key’":                    false,
		"/r/inc/a.h:1:1: note: /s/secret:2:3: warning: ‘key’":                  false,
		"cc1: error: /s/secret:1:1: error: ‘key’":                              false,
		"In file included from /r/inc/a.h:1:":                                  false,
		"key FAKESECRET":                                                       false,
		"/s/secret:1:1: error: unknown type name ‘key’ /r/inc/a.h:1:1: error:": false,
	} {
		if got := c.keepLine(line); got != want {
			t.Errorf("%q: kept %v, want %v", line, got, want)
		}
	}
}

// A confined compile that reads a file outside its tree fails with an
// *OutsideError and nothing of what it read; a link out of the tree
// counts as outside; the same compile unconfined reads it.
func TestCompileHeadersRoot(t *testing.T) {
	fixture.Compiler(t, "cc")
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.h")
	os.WriteFile(secret, []byte("FAKESECRET_ONE, FAKESECRET_TWO\n"), 0o644)
	os.WriteFile(filepath.Join(root, "a.h"), []byte("#include <stddef.h>\nenum e {\n#include \""+secret+"\"\n};\n"), 0o644)
	os.Symlink(secret, filepath.Join(root, "l.h"))
	os.WriteFile(filepath.Join(root, "b.h"), []byte("enum e {\n#include \"l.h\"\n};\n"), 0o644)
	os.WriteFile(filepath.Join(root, "ok.h"), []byte("#include <stdint.h>\nstruct s { uint32_t a; };\n"), 0o644)
	ctx := context.Background()
	for _, h := range []string{"a.h", "b.h"} {
		opt := HeaderOptions{Includes: []string{root}, Headers: []string{h}, Types: []string{"enum e"}}
		if a, err := Headers(ctx, opt); err != nil || a.Types["enum e"] == nil {
			t.Fatalf("%s unconfined: %v", h, err)
		}
		opt.Root = root
		_, err := Headers(ctx, opt)
		var oe *OutsideError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), "secret.h") || strings.Contains(err.Error(), "FAKESECRET") {
			t.Errorf("%s confined: %v, want an *OutsideError", h, err)
		}
	}
	a, err := Headers(ctx, HeaderOptions{Includes: []string{root}, Headers: []string{"ok.h"}, Types: []string{"struct s"}, Root: root})
	if err != nil || a.Types["struct s"] == nil {
		t.Errorf("a sound tree with system headers, confined: %v", err)
	}
}
