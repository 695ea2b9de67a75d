package floor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/targets"
)

// A distro target passed through the API is never silently ignored
// (issue 16 item 3): Scan folds its limits and names it.
func TestScanDistroTarget(t *testing.T) {
	cc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	lib := fixture.Build(t, cc, dir, "new.c", "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n", "libnew.so", "-shared", "-fPIC")
	// glibc 2.12: memcpy@GLIBC_2.14 is above it.
	old := targets.Target{Name: "rhel-6", Kind: targets.Distro, Libc: Glibc, Limits: map[string]string{"GLIBC": "2.12"}}
	res := Scan(context.Background(), []string{lib}, Options{Targets: []targets.Target{old}})
	if len(res.Violations) != 1 || res.Violations[0].Target != "rhel-6" || res.Violations[0].Namespace != "GLIBC" {
		t.Fatalf("violations %+v, want GLIBC naming rhel-6", res.Violations)
	}
	if !strings.Contains(strings.Join(refStrings(res.Violations[0].Symbols), " "), "memcpy@GLIBC_2.14") {
		t.Errorf("symbols %v", res.Violations[0].Symbols)
	}
	// Check: the lowest of a --max and a target wins, naming its source;
	// a limit nothing needs is unused.
	rq := Requirements{Targets: []targets.Target{old}}
	rq.Add("glibc", "2.10", "--max")
	rq.Add("FOO", "1", "--max")
	c, err := Check(context.Background(), []string{lib}, rq, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Violations) != 1 || c.Violations[0].Target != "--max" || c.Violations[0].Allowed != "2.10" {
		t.Errorf("violations %+v, want GLIBC > 2.10 from --max", c.Violations)
	}
	if len(c.Unused) != 1 || c.Unused[0].Namespace != "FOO" || c.Passed() || c.Empty {
		t.Errorf("unused %+v passed %v empty %v", c.Unused, c.Passed(), c.Empty)
	}
	// Nothing to hold a plain file to is an error, an empty tree Empty.
	if _, err := Check(context.Background(), []string{lib}, Requirements{}, Options{}); !errors.Is(err, ErrNothing) {
		t.Errorf("no requirement: %v, want ErrNothing", err)
	}
	c, _ = Check(context.Background(), []string{t.TempDir()}, rq, Options{})
	if !c.Empty || c.Passed() {
		t.Errorf("empty dir: empty %v passed %v", c.Empty, c.Passed())
	}
}

// A cancelled scan says so in a field no caller can miss, and its check
// never passes (issue 17 item 1).
func TestScanCancelled(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		os.WriteFile(filepath.Join(dir, "f"+string(rune('a'+i%26))+string(rune('a'+i/26))), []byte("\x7fELF"), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Scan(ctx, []string{dir}, Options{})
	if !res.Incomplete || !errors.Is(res.Err, ErrIncomplete) || !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("cancelled scan: incomplete %v err %v", res.Incomplete, res.Err)
	}
	if !strings.Contains(res.Err.Error(), "incomplete: interrupted after") {
		t.Errorf("err %q", res.Err)
	}
	rq := Requirements{}
	rq.Add("GLIBC", "9.99", "--max")
	c, _ := Check(ctx, []string{"/usr/bin/ls"}, rq, Options{})
	if c.Passed() || !c.Incomplete || c.Empty {
		t.Errorf("cancelled check: passed %v incomplete %v empty %v", c.Passed(), c.Incomplete, c.Empty)
	}
}

// A weak unversioned reference to a blacklisted symbol is no violation
// (auditwheel skips them: it resolves to 0 where nothing defines it); a
// strong one is.
func TestBlacklistWeak(t *testing.T) {
	cc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	weak := fixture.Build(t, cc, dir, "weak.c", "#include <string.h>\nextern int __cxa_thread_atexit_impl(void (*)(void*), void*, void*) __attribute__((weak));\nint has(char *d, const char *s, size_t n) { memcpy(d, s, n); return __cxa_thread_atexit_impl != 0; }\n", "libweak.so", "-shared", "-fPIC")
	strong := fixture.Build(t, cc, dir, "strong.c", "extern int __cxa_thread_atexit_impl(void (*)(void*), void*, void*);\nint call(void) { return __cxa_thread_atexit_impl(0, 0, 0); }\n", "libstrong.so", "-shared", "-fPIC", "-Wl,--allow-shlib-undefined", "-Wl,-z,undefs")
	if f, err := elfx.Open(weak); err != nil || !slices.Contains(f.Dynamic.Needed, "libc.so.6") {
		t.Fatalf("%s does not need libc.so.6 (%v): the blacklist would not apply", weak, err)
	}
	pol := lookup(t, "manylinux_2_17")
	for _, c := range []struct {
		path string
		want int
	}{{weak, 0}, {strong, 1}} {
		res := Scan(context.Background(), []string{c.path}, Options{Targets: []targets.Target{pol}})
		n := 0
		for _, v := range res.Violations {
			if v.Rule == RuleBlacklist {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%s: %d blacklist violations %+v, want %d", filepath.Base(c.path), n, res.Violations, c.want)
		}
	}
}

// Passed reports whether the check passed: complete, something checked,
// nothing unreadable, no violation.
func (c *CheckResult) Passed() bool {
	return !c.Incomplete && !c.Empty && c.Stats.Errors == 0 && len(c.Violations) == 0
}
