package ranges

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/internal/run"
)

// Two fake secrets live outside every tree: the attacks below try to get
// the compiler to read them and print them (issue 28, item 6).
const (
	secretA = "FAKESECRET_ALPHA"       // an enumerator list, so an enum can hold it
	secretB = "key FAKESECRET_BRAVO\n" // an error quoting "key" and the name
)

func leaks(s string) bool {
	return strings.Contains(s, "FAKESECRET") || strings.Contains(s, "key’") || strings.Contains(s, "'key'")
}

// hostileRepo is a repository whose tags each try one way out of the
// tree; tag 9.0 is a sound tree that must still build.
func hostileRepo(t *testing.T, outside string) string {
	a, b := filepath.Join(outside, "secret1"), filepath.Join(outside, "secret2")
	xstr := "#define STR(x) #x\n#define XSTR(x) STR(x)\n"
	dir := gitRepo(t, []step{{[]string{"9.0"}, map[string]string{
		"inc/real.h":  "#include <stddef.h>\n#include \"sub/../b.h\"\nstruct s { size_t n; struct b x; };\n",
		"inc/sub/x.h": "/* #include \"/in/a/comment\" is no directive */\n",
		"inc/b.h":     "struct b { int y; };\n",
		"inc/a.h":     "#include \"real.h\"\n",
	}}})
	git := func(args ...string) { t.Helper(); gitIn(t, dir, args...) }
	tag := func(name string, write func(inc string)) {
		t.Helper()
		inc := filepath.Join(dir, "inc")
		os.RemoveAll(inc)
		os.MkdirAll(inc, 0o755)
		write(inc)
		git("add", "-A")
		git("commit", "-qm", name)
		git("tag", name)
	}
	header := func(body string) func(string) {
		return func(inc string) { os.WriteFile(filepath.Join(inc, "a.h"), []byte(body), 0o644) }
	}
	tag("1.0", func(inc string) { os.Symlink(a, filepath.Join(inc, "a.h")) })
	tag("1.1", func(inc string) {
		rel, _ := filepath.Rel(inc, b)
		os.Symlink(rel, filepath.Join(inc, "a.h"))
	})
	tag("1.2", func(inc string) { os.Symlink("/dev/zero", filepath.Join(inc, "a.h")) })
	tag("2.0", header("int x;\n#include \""+b+"\"\n"))
	tag("2.1", header("int x;\n#include \"../../secret2\"\n"))
	tag("2.2", header("#define P \""+b+"\"\nint x;\n#include P\n"))
	tag("2.3", header("enum e {\n# /* hidden */ include \\\n \""+a+"\"\n};\n"))
	// Names the preprocessor computes are not read before the compile:
	// its list of the files it read refuses them.
	tag("3.0", header(xstr+"enum e {\n#include XSTR("+a+")\n};\n"))
	tag("3.1", header(xstr+"int x;\n#include XSTR("+b+")\n"))
	// A fatal error stops the compile before it writes that list: only
	// diagnostics located inside the tree are shown.
	tag("3.2", header(xstr+"int x;\n#include XSTR("+b+")\n#include \"missing.h\"\n"))
	return dir
}

func TestHostileTrees(t *testing.T) {
	needTools(t, "git", "cc")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret1"), []byte(secretA+"\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret2"), []byte(secretB), 0o644)
	// Exports land under TMPDIR: "../../secret2" from one's inc/a.h
	// names TMPDIR/secret2.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	os.WriteFile(filepath.Join(tmp, "secret2"), []byte(secretB), 0o644)
	repo := hostileRepo(t, outside)

	ins, err := GitTags(context.Background(), repo, `^[0-9]`)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"enum e", "struct s"}}
	res := (&Builder{Options: opt}).Build(context.Background(), ins)
	want := map[string]string{
		"1.0": "is a link to " + filepath.Join(outside, "secret1") + ", outside the tree",
		"1.1": "outside the tree",
		"1.2": "is a link to /dev/zero, outside the tree",
		"2.0": "names an absolute path: refused",
		"2.1": `#include "../../secret2" climbs out of the tree: refused`,
		"2.2": "#include P (defined as",
		"2.3": "names an absolute path: refused",
		"3.0": "outside their tree: refused",
		"3.1": "outside their tree: refused",
		"3.2": "missing.h",
	}
	// Under Landlock the compiler cannot open secret2 at all and stops
	// there; without it, it reads it, stops at missing.h, and only that
	// diagnostic, located inside the tree, is shown.
	_, lerr := run.Confinement()
	unconfined := lerr != nil
	if !unconfined {
		want["3.2"] = "tried to read " + filepath.Join(outside, "secret2") + ", outside their tree: refused"
	}
	for _, r := range res {
		msg := ""
		if r.Err != nil {
			msg = r.Err.Error()
		}
		if leaks(msg) {
			t.Errorf("%s: the error quotes a secret: %s", r.Version, msg)
		}
		if r.Version == "9.0" {
			if r.Err != nil || r.ABI == nil || r.ABI.Types["struct s"] == nil {
				t.Errorf("9.0, a sound tree: %v", r.Err)
			}
			continue
		}
		if r.Err == nil || !strings.Contains(msg, want[r.Version]) {
			t.Errorf("%s: %q, want an error with %q", r.Version, msg, want[r.Version])
		}
		if r.Version == "3.2" && unconfined && (strings.Contains(msg, "secret2") || !strings.Contains(msg, "inc/a.h:")) {
			t.Errorf("3.2: %q, want the tree's own diagnostic and none located outside", msg)
		}
	}
	tab, err := NewTable(opt, res)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	tab.WriteJSON(&js)
	if leaks(js.String()) {
		t.Errorf("the table quotes a secret:\n%s", js.String())
	}
}

// Header trees given as directories: a FIFO under an include directory
// and links to a device or out of the tree are refused before the
// compiler runs; options that name a path outside (from a table or a
// surface, which ranges add and build obey) are refused for every
// version.
func TestHostileDirs(t *testing.T) {
	needTools(t, "cc")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret1"), []byte(secretA+"\n"), 0o644)
	mk := func(files map[string]string, links map[string]string) string {
		d := t.TempDir()
		for n, body := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(d, n)), 0o755)
			os.WriteFile(filepath.Join(d, n), []byte(body), 0o644)
		}
		for n, to := range links {
			os.MkdirAll(filepath.Dir(filepath.Join(d, n)), 0o755)
			os.Symlink(to, filepath.Join(d, n))
		}
		return d
	}
	fifo := mk(map[string]string{"inc/a.h": "#include \"p.h\"\nstruct s { int a; };\n"}, nil)
	if err := syscall.Mkfifo(filepath.Join(fifo, "inc/p.h"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	zero := mk(map[string]string{"inc/a.h": "#include \"z.h\"\nstruct s { int a; };\n"}, map[string]string{"inc/z.h": "/dev/zero"})
	outDir := mk(map[string]string{"inc/a.h": "#include \"o/secret1\"\nstruct s { int a; };\n"}, map[string]string{"inc/o": outside})
	incOut := mk(map[string]string{"inc/a.h": "struct s { int a; };\n"}, map[string]string{"inc2": outside})
	sound := mk(map[string]string{"inc/a.h": "#include \"../shared/w.h\"\n#include \"l.h\"\nstruct s { w_t a; };\n", "shared/w.h": "typedef int w_t;\n", "inc/r.h": "\n"},
		map[string]string{"inc/l.h": "r.h", "inc/d": "../shared"})
	opt := Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"struct s"}}
	for _, c := range []struct {
		dir, incs, want string
	}{
		{fifo, "", "inc/p.h: a named pipe, not a regular file: refused"},
		{zero, "", "inc/z.h: a link to /dev/zero, outside the tree: refused"},
		{outDir, "", "inc/o: a link to " + outside + ", outside the tree: refused"},
		{incOut, "inc2", "inc2: the include directory resolves to " + outside + ", outside the tree"},
		{sound, "", ""},
	} {
		o := opt
		if c.incs != "" {
			o.Includes = []string{c.incs}
		}
		r := (&Builder{Options: o}).Build(context.Background(), []Input{{Version: "1.0", Dir: c.dir}})[0]
		switch {
		case c.want == "" && r.Err != nil:
			t.Errorf("%s: %v", c.dir, r.Err)
		case c.want != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.dir, r.Err, c.want)
		}
	}
	rel, _ := filepath.Rel(filepath.Join(sound, "inc"), filepath.Join(outside, "secret1"))
	for _, o := range []Options{
		{Headers: []string{filepath.Join(outside, "secret1")}},
		{Headers: []string{rel}},
		{Includes: []string{"inc/../.."}, Headers: []string{"secret1"}},
		{Includes: []string{outside}, Headers: []string{"secret1"}},
		{Headers: []string{"a.h\n#include </etc/passwd>"}},
		{Headers: []string{"a.h"}, Defines: []string{""}},
		{Headers: []string{"a.h"}, Defines: []string{"X=1\n#include \"/etc/passwd\""}},
	} {
		o.Types = []string{"struct s"}
		r := (&Builder{Options: o}).Build(context.Background(), []Input{{Version: "1.0", Dir: sound}})[0]
		if r.Err == nil || leaks(r.Err.Error()) {
			t.Errorf("%+v: %v, want a refusal", o, r.Err)
		}
		if err := o.Check(); err == nil {
			t.Errorf("%+v: Check passes", o)
		}
	}
	if err := (Options{Includes: []string{".", "inc/sub"}, Headers: []string{"ctrl/*.h", "a.h"}, Defines: []string{"A", "B=2", "F(x)=x"}}).Check(); err != nil {
		t.Errorf("sound options: %v", err)
	}
	var te *TreeError
	r := (&Builder{Options: opt}).Build(context.Background(), []Input{{Version: "1.0", Dir: fifo}})[0]
	if !errors.As(r.Err, &te) {
		t.Errorf("fifo: %T, want *TreeError", r.Err)
	}
}

// Names the preprocessor computes reach the compiler: a header that
// includes /dev/zero or a FIFO outside the tree by a computed absolute
// name. Under Landlock the compiler cannot open either: the version fails
// at once, with the refusal, and the compiler's memory stays small (it
// used to take a gigabyte of /dev/zero, up to its 2 GiB limit, or hang on
// the FIFO until its 60 s timeout).
func TestComputedDevices(t *testing.T) {
	needTools(t, "cc")
	if _, err := run.Confinement(); err != nil {
		t.Skip("the compiler cannot be confined here (the FIFO would hang until the timeout):", err)
	}
	outside := t.TempDir()
	fifo := filepath.Join(outside, "p.h")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	xstr := "#define STR(x) #x\n#define XSTR(x) STR(x)\n"
	// The name is spelled in pieces, so no directive names it whole.
	zero := xstr + "#define D /dev\n#define Z zero\n#define P(a, b) a/b\nint x;\n#include XSTR(P(D, Z))\nstruct s { int a; };\n"
	pipe := xstr + "int x;\n#include XSTR(" + fifo + ")\nstruct s { int a; };\n"
	// A FIFO inside the tree, beside the include directory, which the
	// compiler may read: refused by a walk of the whole tree.
	inTree := xstr + "int x;\n#include XSTR(../other/p.h)\nstruct s { int a; };\n"
	opt := Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"struct s"}}
	for _, c := range []struct{ name, header, want string }{
		{"zero", zero, "the headers tried to read /dev/zero, outside their tree: refused"},
		{"fifo", pipe, "the headers tried to read " + fifo + ", outside their tree: refused"},
		{"fifo in tree", inTree, "other/p.h: a named pipe, not a regular file: refused"},
	} {
		d := t.TempDir()
		os.MkdirAll(filepath.Join(d, "inc"), 0o755)
		os.MkdirAll(filepath.Join(d, "other"), 0o755)
		os.WriteFile(filepath.Join(d, "inc/a.h"), []byte(c.header), 0o644)
		if c.header == inTree {
			if err := syscall.Mkfifo(filepath.Join(d, "other/p.h"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := (&Builder{Options: opt}).Build(context.Background(), []Input{{Version: "1.0", Dir: d}})[0]
		var oe *abiread.OutsideError
		var te *TreeError
		if !(errors.As(r.Err, &oe) || errors.As(r.Err, &te)) || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, r.Err, c.want)
		}
		if errors.Is(r.Err, abiread.ErrCompilerTimeout) || errors.Is(r.Err, abiread.ErrCompilerMemory) {
			t.Errorf("%s: stopped by a limit, not refused: %v", c.name, r.Err)
		}
	}
	// Every compiler this process waited for (cc1 among them) peaked
	// far below what /dev/zero used to cost.
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err == nil && ru.Maxrss > 256<<10 {
		t.Errorf("a child's peak memory: %d KB, want under 256 MB", ru.Maxrss)
	}
}

// Without Landlock the compile runs as before (the check after it still
// refuses what it read from outside), and the build says so once.
func TestUnconfinedFallback(t *testing.T) {
	needTools(t, "cc")
	defer run.WithoutLandlock()()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret1")
	os.WriteFile(secret, []byte(secretA+"\n"), 0o644)
	xstr := "#define STR(x) #x\n#define XSTR(x) STR(x)\n"
	mk := func(header string) string {
		d := t.TempDir()
		os.MkdirAll(filepath.Join(d, "inc"), 0o755)
		os.WriteFile(filepath.Join(d, "inc/a.h"), []byte(header), 0o644)
		return d
	}
	sound := mk("struct s { int a; };\n")
	leak := mk(xstr + "enum e {\n#include XSTR(" + secret + ")\n};\nstruct s { int a; };\n")
	opt := Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"struct s"}}
	res := (&Builder{Options: opt}).Build(context.Background(), []Input{{Version: "1.0", Dir: sound}, {Version: "2.0", Dir: leak}})
	if res[0].Err != nil || res[0].ABI == nil || res[0].ABI.Types["struct s"] == nil {
		t.Errorf("sound tree: %v", res[0].Err)
	}
	if !strings.Contains(res[0].Note, "the compiler ran unconfined") || res[1].Note != "" {
		t.Errorf("notes %q, %q: want one, on the first version", res[0].Note, res[1].Note)
	}
	var oe *abiread.OutsideError
	if !errors.As(res[1].Err, &oe) || oe.Denied || leaks(res[1].Err.Error()) {
		t.Errorf("computed include, unconfined: %v, want the check after the compile to refuse it", res[1].Err)
	}
}
