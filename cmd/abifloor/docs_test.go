package main

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestDocsJSON keeps the documentation's JSON true: every ```json block
// in docs/*.md follows a line <!-- example: NAME -->, and is the output of
// the command docExamples names for NAME, run now on fixtures compiled
// now. go test ./cmd/abifloor -run DocsJSON -update rewrites the blocks;
// review the diff of docs/. What depends on the compiler (fingerprints,
// the size of function code) is compared loosely.
func TestDocsJSON(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the examples are x86-64 outputs")
	}
	fixture.Need(t, "gcc")
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	for i, d := range docs {
		if docs[i], err = filepath.Abs(d); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(t.TempDir())
	buildDocFixtures(t)

	outputs := map[string]string{}
	for name, args := range docExamples {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		run(context.Background(), env, args)
		if stdout.Len() == 0 {
			t.Fatalf("example %s: abifloor %v wrote nothing:\n%s", name, args, stderr.String())
		}
		outputs[name] = strings.TrimSuffix(stdout.String(), "\n")
	}
	used := map[string]bool{}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		var out []string
		changed := false
		for i := 0; i < len(lines); i++ {
			out = append(out, lines[i])
			if strings.TrimSpace(lines[i]) != "```json" {
				continue
			}
			where := filepath.Base(doc) + ":" + strconv.Itoa(i+1)
			name := ""
			if i > 0 {
				if m := exampleRE.FindStringSubmatch(lines[i-1]); m != nil {
					name = m[1]
				}
			}
			end := i + 1
			for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
				end++
			}
			block := strings.Join(lines[i+1:end], "\n")
			want, ok := outputs[name]
			switch {
			case name == "":
				t.Errorf("%s: a JSON block without <!-- example: NAME --> before it: the docs' JSON must come from a test", where)
			case !ok:
				t.Errorf("%s: example %q is not in docExamples", where, name)
			default:
				used[name] = true
				if looseJSON(block) != looseJSON(want) {
					if *update {
						block, changed = want, true
					} else {
						t.Errorf("%s: example %s differs from abifloor %s (go test ./cmd/abifloor -run DocsJSON -update, then review):\n%s",
							where, name, strings.Join(docExamples[name], " "), want)
					}
				}
			}
			out = append(out, strings.Split(block, "\n")...)
			i = end - 1
		}
		if changed {
			if err := os.WriteFile(doc, []byte(strings.Join(out, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range docExamples {
		if !used[name] {
			t.Errorf("example %s is shown in no doc", name)
		}
	}
}

var exampleRE = regexp.MustCompile(`^<!-- example: ([a-z0-9-]+) -->$`)

// docExamples are the commands behind the docs' JSON, run in a directory
// that buildDocFixtures filled.
var docExamples = map[string][]string{
	"scan":  {"scan", "--format", "json", "--why", "lib/libcopy.so"},
	"check": {"check", "--format", "json", "--max", "GLIBC=2.12", "lib/libcopy.so"},
	// Built with -g -O2 in /src/proj (-fdebug-prefix-map), so the
	// sites' paths do not name the test's directory.
	"check-sites": {"check", "--format", "json", "--target", "manylinux_2_12", "libsites.so"},
	"fit":         {"fit", "--format", "json", "lib/libcopy.so"},
	"bind":        {"bind", "--format", "json", "app"},
	"abi-dump":    {"abi", "dump", "--format", "json", "librect.so"},
	"diff":        {"diff", "--format", "json", "libd1.so", "libd2.so"},
	"ranges":      {"ranges", "build", "--no-cache", "--format", "json", "--abi", "1.0=libr1.so", "--abi", "1.1=libr2.so", "--abi", "2.0=libr3.so"},
}

func buildDocFixtures(t *testing.T) {
	t.Helper()
	files := map[string]string{
		"copy.c":   "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n",
		"app.c":    "int nvmlInit_v2(void);\nint main(void) { return nvmlInit_v2(); }\n",
		"rect.c":   "struct rect { int w, h; struct rect *next; };\nint area(const struct rect *r) { return r->w * r->h; }\n",
		"rect.map": "A_1 { global: area; local: *; };\n",
		"d1.c":     "struct s { int a; int b; };\nint use(struct s *p) { return p->b; }\nint gone(void) { return 0; }\nint bumped(void) { return 1; }\n",
		"d1.map":   "T_1 { global: use; gone; bumped; local: *; };\n",
		"d2.c":     "struct s { long a; int b; };\nint use(struct s *p) { return p->b; }\nint bumped(void) { return 2; }\n",
		"d2.map":   "T_1 { global: use; local: *; };\nT_2 { global: bumped; } T_1;\n",
		"r1.c":     "struct params { int size; };\nint call(struct params *p) { return p->size; }\n",
		"sites.c":  "#include <string.h>\n\nstatic void put(char *d, const char *s, size_t n)\n{\n\tmemcpy(d, s, n);\n}\n\nvoid copy(char *d, const char *s, size_t n)\n{\n\tput(d, s, n);\n\td[n] = 0;\n}\n",
		"r2.c":     "struct params { long size; };\nint call(struct params *p) { return p->size; }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir("lib", 0o755); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-o", "lib/libcopy.so", "copy.c"},
		{"-o", "app", "app.c", "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,now"},
		{"-shared", "-fPIC", "-g", "-O0", "-o", "librect.so", "rect.c", "-Wl,--version-script=rect.map"},
		{"-shared", "-fPIC", "-g", "-O0", "-o", "libd1.so", "d1.c", "-Wl,--version-script=d1.map"},
		{"-shared", "-fPIC", "-g", "-O0", "-o", "libd2.so", "d2.c", "-Wl,--version-script=d2.map"},
		{"-shared", "-fPIC", "-g", "-O0", "-o", "libr1.so", "r1.c"},
		{"-shared", "-fPIC", "-g", "-O0", "-o", "libr2.so", "r2.c"},
		{"-shared", "-fPIC", "-g", "-O0", "-o", "libr3.so", "r1.c"},
		{"-shared", "-fPIC", "-g", "-O2", "-fdebug-prefix-map=" + wd + "=/src/proj", "-o", "libsites.so", "sites.c"},
	} {
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
	}
}

var (
	looseFingerprintRE = regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	looseFuncSizeRE    = regexp.MustCompile(`("kind": "i?func",\s*"binding": "[a-z]+",\s*"size": )\d+`)
	looseAddressRE     = regexp.MustCompile(`"address": "0x[0-9a-f]+"`)
)

// looseJSON takes out what depends on the compiler: fingerprints, the
// size of each function's code, and the address of a call site.
func looseJSON(s string) string {
	s = looseFingerprintRE.ReplaceAllString(s, "sha256:FINGERPRINT")
	s = looseAddressRE.ReplaceAllString(s, `"address": "0x0"`)
	return looseFuncSizeRE.ReplaceAllString(s, "${1}0")
}

// TestPreCommitHook runs the hook of .pre-commit-hooks.yaml as pre-commit
// does: its entry, then the hook's args, then the staged files. A staged
// ELF file over the limit fails; a commit of non-ELF files passes.
func TestPreCommitHook(t *testing.T) {
	fixture.Need(t, "gcc")
	b, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var entry []string
	for _, line := range strings.Split(string(b), "\n") {
		if e, ok := strings.CutPrefix(strings.TrimSpace(line), "entry: "); ok {
			entry = strings.Fields(e)
		}
	}
	if len(entry) < 2 || entry[0] != "abifloor" {
		t.Fatalf("entry %q: want abifloor ...", entry)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "new.c")
	if err := os.WriteFile(src, []byte("#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libnew.so")
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	png := filepath.Join(dir, "logo.png")
	if err := os.WriteFile(png, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files []string
		want  int
	}{
		{[]string{lib, png}, exitViolation},
		{[]string{png}, exitOK},
	} {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		args := append(append(append([]string{}, entry[1:]...), "--max", "GLIBC=2.12"), tc.files...)
		if got := run(context.Background(), env, args); got != tc.want {
			t.Errorf("abifloor %v: exit %d, want %d\n%s%s", args, got, tc.want, stdout.String(), stderr.String())
		}
	}
}

// TestREADMEInstall runs the README's install line as a new user would,
// from the clone, and the --version of what it installed: a user reaches
// `abifloor` on PATH with one command (issue 29, item 7).
func TestREADMEInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the command with go install")
	}
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "CGO_ENABLED=0 go install ") {
			line = strings.Fields(l)
			break
		}
	}
	if len(line) != 4 || line[3] != "./cmd/abifloor" {
		t.Fatalf("README: no line `CGO_ENABLED=0 go install ./cmd/abifloor` (got %q)", line)
	}
	env, line := line[0], line[1:]
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	bin := t.TempDir()
	cmd := exec.Command(goTool, line[1:]...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOBIN="+bin, env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(line, " "), err, out)
	}
	// Static: no interpreter, so nothing of the host's C library is
	// loaded at each start (README says why).
	if f, err := elf.Open(filepath.Join(bin, "abifloor")); err != nil {
		t.Fatal(err)
	} else {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("installed abifloor has an interpreter: not static")
			}
		}
		f.Close()
	}
	out, err := exec.Command(filepath.Join(bin, "abifloor"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "abifloor ") || !strings.Contains(string(out), "platform policies:") {
		t.Fatalf("installed abifloor --version: %v\n%s", err, out)
	}
}
