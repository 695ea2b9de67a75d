package main

import (
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/report"
)

// actionHostile goes into the name of every fixture: a backtick (a code
// span), a CR and "# " (a heading), '<img' and '<script' (HTML), '|' (a
// table cell) and "::error::" (a workflow command).
const actionHostile = "`<img src=x>|::error::x\r# H<script>"

// markdownRenderer is a Python that has Python-Markdown (Debian's
// python3-markdown), or "" when none has.
func markdownRenderer() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import markdown").Run() == nil {
			return py
		}
	}
	return ""
}

// renderMarkdown renders md as a job summary is: markdown with tables.
func renderMarkdown(t *testing.T, py, md string) string {
	t.Helper()
	cmd := exec.Command(py, "-c", "import sys, markdown; sys.stdout.write(markdown.markdown(sys.stdin.read(), extensions=['tables']))")
	cmd.Stdin = strings.NewReader(md)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rendering the summary: %v", err)
	}
	return string(out)
}

// summaryElements are the elements a job summary may hold; any other (an
// img, a script, a link, a heading but the title's) was injected.
var summaryElements = map[string]bool{"h2": true, "p": true, "strong": true, "table": true, "thead": true, "tbody": true,
	"tr": true, "th": true, "td": true, "code": true, "ul": true, "li": true}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)`)

// checkRendered fails t when the HTML holds an element a summary never
// has, more than one heading, or a table whose rows are not rows rows
// of three cells (a '|' or a line break in a name would add cells or
// rows); it returns the text, tags removed and entities decoded.
func checkRendered(t *testing.T, h string, rows int) string {
	t.Helper()
	heads := 0
	for _, m := range tagRE.FindAllStringSubmatch(h, -1) {
		name := strings.ToLower(m[2])
		if !summaryElements[name] {
			t.Errorf("element <%s> in the rendered summary:\n%s", name, h)
		}
		if name == "h2" && m[1] == "" {
			heads++
		}
	}
	if heads != 1 {
		t.Errorf("%d headings in the rendered summary:\n%s", heads, h)
	}
	trs := strings.Split(h, "<tr>")[1:]
	if rows < 0 {
		if len(trs) > 0 {
			t.Errorf("a table in a summary that has none:\n%s", h)
		}
	} else if len(trs) != rows+1 {
		t.Errorf("%d table rows, want %d and the header:\n%s", len(trs)-1, rows, h)
	}
	for _, tr := range trs {
		tr, _, _ = strings.Cut(tr, "</tr>")
		if n := strings.Count(tr, "<td>") + strings.Count(tr, "<th>"); n != 3 {
			t.Errorf("a row of %d cells, want 3: %s", n, tr)
		}
	}
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(h, ""))
}

// TestActionRendered runs the Action's step (.github/action/run.sh) as a
// runner runs it, INPUT_* set and GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and
// GITHUB_WORKSPACE files and directory, on one tree per kind of verdict,
// built now, every file named with actionHostile: each rule of
// report.CheckRules, an unreadable file, a limit that checked nothing, a
// usage error, an empty tree. Each job summary is rendered by a real
// markdown renderer (Python-Markdown, with tables) and the HTML must hold
// no injected element, row, cell or heading, and the cause in the words
// of the other reports. stdout holds no line the runner would take as a
// command of the name's.
func TestActionRendered(t *testing.T) {
	for _, tool := range []string{"gcc", "bash"} {
		if !fixture.Have(tool) {
			t.Skip(tool + " is not installed")
		}
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the fixtures pin x86_64 glibc versions")
	}
	py := markdownRenderer()
	if py == "" {
		t.Skip("no python3 with the markdown module (Debian's python3-markdown): the summaries cannot be rendered")
	}
	script, err := filepath.Abs("../../.github/action/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	src := t.TempDir()
	write := func(dir, name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sh := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, b)
		}
	}
	tree := func(kind string) string { // a tree of the workspace
		p := filepath.Join(ws, kind)
		os.MkdirAll(p, 0o755)
		return p
	}
	name := func(kind, ext string) string { return "lib" + kind + actionHostile + ext }

	write(src, "new.c", "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n")
	write(src, "app.c", "int main(void) { return 0; }\n")
	write(src, "cxx.c", "void at24(void) {}\nvoid at25(void) {}\n")
	write(src, "cxx.map", "GLIBCXX_3.4.24 { global: at24; };\nGLIBCXX_3.4.25 { global: at25; } GLIBCXX_3.4.24;\n")
	write(src, "use25.c", "void at25(void);\nvoid f(void) { at25(); }\n")
	write(src, "foo.c", "void foo(void) {}\n")
	write(src, "usefoo.c", "void foo(void);\nvoid f(void) { foo(); }\n")
	write(src, "z.c", "void _tr_init(void) {}\n")
	write(src, "usez.c", "void _tr_init(void);\nvoid f(void) { _tr_init(); }\n")
	os.MkdirAll(filepath.Join(src, "stub"), 0o755)

	// floor/limit: --max, and a distro target.
	sh("gcc", "-shared", "-fPIC", "-o", filepath.Join(tree("limit"), name("limit", ".so")), "new.c")
	sh("gcc", "-o", filepath.Join(tree("distro"), name("distro", "")), "app.c")
	// floor/symbol-versions: GLIBCXX 3.4.25 is not in manylinux_2_28's set.
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-Wl,--version-script=cxx.map", "-Wl,-soname,libstdc++.so.6", "-o", "stub/libstdc++.so.6", "cxx.c")
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-o", filepath.Join(tree("symver"), name("symver", ".so")), "use25.c", "-Lstub", "-l:libstdc++.so.6")
	// floor/lib-whitelist: a library of a hostile soname, not shipped.
	foo := "libfoo" + actionHostile + ".so.1"
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-Wl,-soname,"+foo, "-o", "stub/libfoo.so.1", "foo.c")
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-o", filepath.Join(tree("whitelist"), name("whitelist", ".so")), "usefoo.c", "stub/libfoo.so.1")
	// floor/blacklist: libz's _tr_init.
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-Wl,-soname,libz.so.1", "-o", "stub/libz.so.1", "z.c")
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-o", filepath.Join(tree("blacklist"), name("blacklist", ".so")), "usez.c", "-Lstub", "-l:libz.so.1")
	// floor/libc: a musl-linked file against a glibc policy.
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-Wl,-soname,libc.so", "-o", "stub/libc.so", "foo.c")
	sh("gcc", "-shared", "-fPIC", "-nostdlib", "-o", filepath.Join(tree("libc"), name("libc", ".so")), "usefoo.c", "-Lstub", "-l:libc.so")
	// floor/arch: manylinux_2_5 has no aarch64 rules.
	haveA64 := false
	if fixture.Have("aarch64-linux-gnu-gcc") {
		sh("aarch64-linux-gnu-gcc", "-shared", "-fPIC", "-o", filepath.Join(tree("arch"), name("arch", ".so")), "new.c")
		haveA64 = true
	}
	// floor/claim: a .deb's Depends, an npm package's cpu.
	haveDeb := false
	if fixture.Have("dpkg-deb") {
		os.MkdirAll(filepath.Join(src, "deb/usr/lib"), 0o755)
		sh("gcc", "-shared", "-fPIC", "-o", "deb/usr/lib/"+name("deb", ".so"), "new.c")
		write(src, "deb/DEBIAN/control", "Package: p\nVersion: 1\nArchitecture: amd64\nMaintainer: x <x@example.org>\nDepends: libc6 (>= 2.3)\nDescription: x\n")
		sh("dpkg-deb", "--root-owner-group", "--build", "deb", filepath.Join(tree("deb"), "p"+actionHostile+".deb"))
		haveDeb = true
	}
	os.MkdirAll(filepath.Join(src, "npm/package"), 0o755)
	sh("gcc", "-shared", "-fPIC", "-o", "npm/package/"+name("npm", ".node"), "new.c")
	write(src, "npm/package/package.json", `{"name": "x", "version": "1.0.0", "cpu": ["arm64"]}`)
	sh("tar", "-czf", filepath.Join(tree("npm"), "x"+actionHostile+".tgz"), "-C", "npm", "package")
	// floor/unreadable, beside a malformed artefact (a note) and a good file.
	write(tree("unreadable"), name("broken", ".so"), "\x7fELF\x02\x01\x01")
	write(tree("unreadable"), "junk"+actionHostile+".zip", "PK\x03\x04rest")
	sh("gcc", "-o", filepath.Join(tree("unreadable"), name("ok", "")), "app.c")
	tree("empty")
	// The loader's own verdicts (check --target as T's loader): an
	// unversioned __res_search, in libresolv before 2.34; an interpreter
	// the target does not have; a function of a library loaded later,
	// linked -z now.
	write(src, "res.c", "extern int __res_search(const char *, int, int, unsigned char *, int);\nint run(void) { unsigned char b[512]; return __res_search(\"localhost\", 1, 1, b, sizeof b); }\n")
	write(src, "nvml.c", "int nvmlInit_v2(void);\nint main(int argc, char **argv) { if (argc > 5) return nvmlInit_v2(); return 0; }\n")
	sh("gcc", "-shared", "-fPIC", "-o", filepath.Join(tree("undefined"), name("res", ".so")), "res.c")
	sh("gcc", "-o", filepath.Join(tree("interp"), name("interp", "")), "app.c", "-Wl,--dynamic-linker=/run/host/usr/lib64/ld-linux-x86-64.so.2")
	sh("gcc", "-o", filepath.Join(tree("bindnow"), name("now", "")), "nvml.c", "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,now")

	cases := []struct {
		kind, target, max, args string
		code                    int
		rows                    int // -1: no table
		says                    []string
	}{
		{kind: "limit", max: "GLIBC=2.12", code: 1, rows: 1, says: []string{"FAIL", "GLIBC 2.14 > 2.12 (--max): needs memcpy@GLIBC_2.14"}},
		{kind: "distro", target: "debian-11", code: 1, rows: 1, says: []string{"> 2.31 (debian-11): needs __libc_start_main@GLIBC_2.34"}},
		{kind: "symver", target: "manylinux_2_28", code: 1, rows: 1, says: []string{"GLIBCXX 3.4.25 > 3.4.24 (manylinux_2_28): needs at25@GLIBCXX_3.4.25"}},
		{kind: "whitelist", target: "manylinux_2_28", code: 1, rows: 1, says: []string{"needs " + report.Clean(foo) + ", which manylinux_2_28 does not allow (lib_whitelist) and the tree does not ship"}},
		{kind: "blacklist", target: "manylinux_2_28", code: 1, rows: 1, says: []string{"uses symbols of libz.so.1 that manylinux_2_28 forbids (blacklist): needs _tr_init"}},
		{kind: "libc", target: "manylinux_2_28", code: 1, rows: 1, says: []string{"linked against musl; the targets are glibc: manylinux_2_28"}},
		{kind: "arch", target: "manylinux1", code: 1, rows: 1, says: []string{"manylinux_2_5 has no rules for aarch64"}},
		{kind: "deb", code: 1, rows: 1, says: []string{"GLIBC 2.14 > 2.3 (Depends: libc6 (>= 2.3)): needs memcpy@GLIBC_2.14", "claim of ", ": Depends: libc6 (>= 2.3): NOT kept"}},
		{kind: "npm", target: "debian-12", code: 1, rows: 1, says: []string{"package.json cpu [arm64]: the file is x64 (x86_64)"}},
		{kind: "unreadable", max: "GLIBC=2.40", code: 2, rows: 2, says: []string{"ERROR", "could not be read: malformed ELF", "skipped ", "malformed artefact"}},
		{kind: "unreadable", max: "GLIBC=2.40 GLIBCXX=3.4.1", args: "--exclude 'libbroken*' --exclude 'junk*'", code: 0, rows: 1, says: []string{"OK", "warning: --max GLIBCXX=3.4.1: no file needs a GLIBCXX version, so this limit checked nothing"}},
		{kind: "empty", max: "GLIBC=2.40", code: 2, rows: -1, says: []string{"ERROR", "no ELF file was checked"}},
		{kind: "undefined", target: "debian-11", code: 1, rows: 1, says: []string{"undefined symbol: __res_search (in libresolv.so.2 before glibc 2.34: add -lresolv) on debian-11"}},
		{kind: "interp", target: "debian-12", code: 1, rows: 1, says: []string{"interpreter /run/host/usr/lib64/ld-linux-x86-64.so.2: not on debian-12"}},
		{kind: "bindnow", target: "debian-12", code: 1, rows: 1, says: []string{"undefined symbol: nvmlInit_v2: linked with -z now"}},
		{kind: "limit", target: "ubuntu-2204", code: 2, rows: -1, says: []string{"ERROR", "the check could not start: unknown target", "did you mean ubuntu-22.04"}},
	}
	// Every rule of check's is met by some case (all but floor/incomplete,
	// which needs a signal: TestCheckSummaryIncomplete), so a new rule
	// (a new kind of verdict) fails here until a case shows its summary.
	seen := map[string]bool{"floor/incomplete": true}
	if !haveA64 {
		seen["floor/arch"] = true
	}
	defer func() {
		for _, r := range report.CheckRules {
			if !seen[r.ID] && !t.Failed() {
				t.Errorf("no case of rule %s: add a tree that breaks it", r.ID)
			}
		}
	}()
	for _, c := range cases {
		if c.kind == "arch" && !haveA64 || c.kind == "deb" && !haveDeb {
			t.Logf("%s: skipped: no aarch64-linux-gnu-gcc or dpkg-deb", c.kind)
			continue
		}
		t.Run(c.kind, func(t *testing.T) {
			tmp := t.TempDir()
			summary, outputs := filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "outputs")
			// The runner makes the files; a summary is appended to.
			os.WriteFile(summary, nil, 0o644)
			os.WriteFile(outputs, nil, 0o644)
			cmd := exec.Command("bash", script)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "GITHUB_WORKSPACE="+ws, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+outputs,
				"RUNNER_TEMP="+tmp, "INPUT_PATHS="+c.kind, "INPUT_TARGET="+c.target, "INPUT_MAX="+c.max,
				"INPUT_ARGS="+c.args+" --json "+filepath.Join(tmp, "report.json"), "INPUT_SARIF="+filepath.Join(tmp, "sarif/x.sarif"),
				"INPUT_FORMAT=", "INPUT_FAIL_ON=", "NO_COLOR=1")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout.String(), stderr.String())
			}
			for _, line := range strings.Split(stdout.String(), "\n") {
				if strings.HasPrefix(line, "::") && !regexp.MustCompile(`^::(error|warning|notice) (file=|title=)`).MatchString(line) {
					t.Errorf("a forged workflow command on stdout: %q", line)
				}
			}
			md, err := os.ReadFile(summary)
			if err != nil {
				t.Fatal(err)
			}
			text := checkRendered(t, renderMarkdown(t, py, string(md)), c.rows)
			for _, s := range c.says {
				if !strings.Contains(text, s) {
					t.Errorf("the rendered summary does not say %q:\n%s", s, text)
				}
			}
			if c.rows > 0 {
				// Every file is there by its name, as the reports clean it.
				var rep struct {
					Files []struct{ Path string }
				}
				b, err := os.ReadFile(filepath.Join(tmp, "report.json"))
				if err != nil || json.Unmarshal(b, &rep) != nil {
					t.Fatalf("--json in args wrote no report: %v", err)
				}
				for _, f := range rep.Files {
					if !strings.Contains(text, report.Clean(f.Path)) {
						t.Errorf("the rendered summary does not name %q:\n%s", report.Clean(f.Path), text)
					}
				}
			}
			// The SARIF file is a log, whatever happened.
			b, err := os.ReadFile(filepath.Join(tmp, "sarif/x.sarif"))
			var log struct {
				Runs []struct{ Results []struct{ RuleID string } }
			}
			if err != nil || json.Unmarshal(b, &log) != nil || len(log.Runs) != 1 {
				t.Fatalf("SARIF file: %v\n%s", err, b)
			}
			for _, r := range log.Runs[0].Results {
				seen[r.RuleID] = true
			}
			out, _ := os.ReadFile(outputs)
			if !regexp.MustCompile(`(?m)^verdict=(ok|fail|error)$`).Match(out) || strings.Contains(string(out), "img") {
				t.Errorf("outputs:\n%s", out)
			}
		})
	}
}
