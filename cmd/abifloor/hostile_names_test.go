package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/imagetest"
	"github.com/abifloor/abifloor/report"
)

// hostileNames are the names of issue 28 items 1-5: each is a workflow
// command, or hides one, by the GitHub Actions runner's rules (a "::"
// after Unicode white space starts a command, "##[" anywhere does, and
// the runner's culture-sensitive comparison skips controls and
// invisible characters), or displays other than it reads.
var hostileNames = []string{
	"::add-mask::FORGED",
	"x##[add-mask]FORGED",
	"%0A::error::FORGED",
	"cr\r::error::FORGED\n::warning::FORGED",
	"rlo\u202efdp.so",
	"ls\u2028::error::FORGED\u2029",
	"\u00a0::add-mask::FORGED",
	":\u00ad:add-mask::FORGED",
	"#\u200b#[add-mask]FORGED",
	"::stop-commands::FORGED",
}

// progName is the program's file name.
const progName = "::set-output name=x::FORGED"

// stand is a C identifier as long as hostileNames[i] in bytes,
// unique to kind and i, that the compiled files carry until patch
// replaces it in place.
func stand(kind byte, i int) string {
	p := fmt.Sprintf("%c%dz", kind, i)
	return p + strings.Repeat("k", len(hostileNames[i])-len(p))
}

// patch replaces every stand-in of the kinds in file by its hostile
// name (the same length: offsets stay valid; hash tables go stale, which
// a reader of names does not mind).
func patch(t *testing.T, file string, kinds string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []byte(kinds) {
		for i, h := range hostileNames {
			b = bytes.ReplaceAll(b, []byte(stand(k, i)), []byte(h))
		}
	}
	if err := os.WriteFile(file, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestHostileNames (issue 28 items 1-5, 9) feeds the names above, as file
// names, DT_NEEDED entries, symbol, version and type names and artefact
// members, through every command and every format, and fails on any line
// of stdout or stderr that the runner would run as a workflow command,
// on raw bidirectional, invisible or line-separator characters, and on
// any character the output guard had to neutralise: every writer must
// escape its own names with report.Clean, so a new path that forgets
// shows here by name.
func TestHostileNames(t *testing.T) {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	os.Mkdir(tree, 0o755)
	gcc := func(args ...string) {
		t.Helper()
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// libmulti, twice: a function and a struct per name, each function
	// in a version node of its own; v2 grows every struct, so diff's
	// "reached from" lines name the functions.
	var src [2]strings.Builder
	var vmap strings.Builder
	for i := range hostileNames {
		s, ty, v := stand('s', i), stand('t', i), stand('v', i)
		fmt.Fprintf(&src[0], "struct %s { int a; };\nint %s(struct %s *p) { return p->a; }\n", ty, s, ty)
		fmt.Fprintf(&src[1], "struct %s { int a; long b; };\nint %s(struct %s *p) { return p->a + (int)p->b; }\n", ty, s, ty)
		fmt.Fprintf(&vmap, "%s_1.0 { global: %s; };\n", v, s)
	}
	mapFile := write("multi.map", vmap.String())
	multi := [2]string{filepath.Join(dir, "multi1.so"), filepath.Join(dir, "multi2.so")}
	soname := stand('n', len(hostileNames)-1)
	for k := range multi {
		c := write(fmt.Sprintf("multi%d.c", k+1), src[k].String())
		gcc("-shared", "-fPIC", "-g", "-O0", "-o", multi[k], c, "-Wl,--version-script="+mapFile, "-Wl,-soname,"+soname)
	}
	// A library per name, whose soname (and file name) is the name.
	var libs []string
	for i := range hostileNames[:len(hostileNames)-1] {
		n := stand('n', i)
		p := filepath.Join(dir, n)
		c := write(fmt.Sprintf("l%d.c", i), fmt.Sprintf("int l%d(void) { return %d; }\n", i, i))
		gcc("-shared", "-fPIC", "-o", p, c, "-Wl,-soname,"+n)
		libs = append(libs, p)
	}
	// The program needs every library and calls every function.
	var prog strings.Builder
	for i := range hostileNames {
		fmt.Fprintf(&prog, "struct %s;\nint %s(struct %s *);\n", stand('t', i), stand('s', i), stand('t', i))
	}
	prog.WriteString("int main(void) { int r = 0;\n")
	for i := range hostileNames {
		fmt.Fprintf(&prog, "r += %s(0);\n", stand('s', i))
	}
	prog.WriteString("return r; }\n")
	progSrc := write("prog.c", prog.String())
	progPath := filepath.Join(tree, stand('f', 0))
	gcc(append([]string{"-o", progPath, progSrc, multi[0], "-Wl,--no-as-needed", "-Wl,-rpath,$ORIGIN"}, libs...)...)
	patch(t, progPath, "stvn")
	// broken/ holds the program beside a libmulti whose functions keep
	// their stand-ins and no other library: bind names each missing
	// library and unresolved symbol.
	broken := filepath.Join(dir, "broken")
	os.Mkdir(broken, 0o755)
	if b, err := os.ReadFile(progPath); err != nil || os.WriteFile(filepath.Join(broken, progName), b, 0o755) != nil {
		t.Fatal("copy prog", err)
	}
	unpatched := filepath.Join(broken, hostileNames[len(hostileNames)-1])
	if b, err := os.ReadFile(multi[0]); err != nil || os.WriteFile(unpatched, b, 0o755) != nil {
		t.Fatal("copy multi1.so", err)
	}
	patch(t, unpatched, "n")
	progFile := filepath.Join(tree, progName)
	if err := os.Rename(progPath, progFile); err != nil {
		t.Fatal(err)
	}
	for i, l := range libs {
		patch(t, l, "n")
		if err := os.Rename(l, filepath.Join(tree, hostileNames[i])); err != nil {
			t.Fatal(err)
		}
	}
	for k := range multi {
		patch(t, multi[k], "stvn")
	}
	installed := filepath.Join(tree, hostileNames[len(hostileNames)-1])
	if b, err := os.ReadFile(multi[0]); err != nil || os.WriteFile(installed, b, 0o755) != nil {
		t.Fatal("copy multi1.so", err)
	}
	// Named by a hostile path too (a directory holds the name).
	hostileDir := filepath.Join(dir, hostileNames[1])
	os.Mkdir(hostileDir, 0o755)
	oldLib := filepath.Join(hostileDir, hostileNames[4])
	if b, err := os.ReadFile(multi[0]); err != nil || os.WriteFile(oldLib, b, 0o755) != nil {
		t.Fatal("copy multi1.so", err)
	}

	// ABI JSON of both, for diff of JSON inputs.
	dump := func(lib, out string) string {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		if code := run(context.Background(), env, []string{"abi", "dump", "--format", "json", lib}); code != exitOK {
			t.Fatalf("abi dump %s: exit %d\n%s", lib, code, stderr.String())
		}
		return write(out, stdout.String())
	}
	json1, json2 := dump(multi[0], "multi1.json"), dump(multi[1], "multi2.json")

	// An image whose layer holds members under the names, each a broken
	// ELF file, and whose second layer breaks inside a member: bind
	// --image warns about that one on stderr.
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	progBytes, _ := os.ReadFile(progFile)
	add := func(name string, b []byte) {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX})
		tw.Write(b)
	}
	add("usr/bin/prog", progBytes)
	for _, h := range hostileNames {
		add("usr/lib/"+h, []byte("\x7fELF\x02\x01\x01broken"))
	}
	tw.Close()
	// A second layer that breaks inside a member named by each name in
	// turn is one layer per name; one, under "##[", will do.
	var cut bytes.Buffer
	tw = tar.NewWriter(&cut)
	tw.WriteHeader(&tar.Header{Name: "usr/lib/" + hostileNames[1], Mode: 0o644, Size: 4096, Typeflag: tar.TypeReg, Format: tar.FormatPAX})
	tw.Write(make([]byte, 4096))
	image := filepath.Join(dir, "image")
	imagetest.Write(t, image, layer.Bytes(), cut.Bytes()[:cut.Len()-2048])

	// A tarball of the tree: members named by the names.
	var tb bytes.Buffer
	tw = tar.NewWriter(&tb)
	entries, _ := os.ReadDir(tree)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(tree, e.Name()))
		tw.WriteHeader(&tar.Header{Name: "pkg/" + e.Name(), Mode: 0o755, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatPAX})
		tw.Write(b)
	}
	tw.Close()
	write("pkg.tar", tb.String())

	ns := hostileNames[2] // a namespace: version "NAME_1.0"
	type invocation struct {
		args    []string
		formats []string
	}
	all := []string{"text", "json", "github", "sarif", "junit"}
	// Relative paths, as a CI job names them: a name then starts a line.
	t.Chdir(tree)
	tree, tarball, member := ".", "../pkg.tar", "../pkg.tar!/pkg/"+hostileNames[len(hostileNames)-1]
	hostileDir, oldLib = "../"+hostileNames[1], filepath.Join("..", hostileNames[1], hostileNames[4])
	progFile = progName
	var runs []invocation
	for _, target := range []string{tree, tarball} {
		runs = append(runs,
			invocation{[]string{"scan", target}, []string{"text", "json"}},
			invocation{[]string{"scan", "-v", "--why", target}, []string{"text", "json"}},
			invocation{[]string{"check", "--max", "GLIBC=2.0", "--max", ns + "=0.5", target}, append(all, "markdown")},
			invocation{[]string{"check", "-v", "--why", "--max", "GLIBC=2.0", target}, all},
			invocation{[]string{"check", "--max", "NOSUCH=1.0", target}, all},
			invocation{[]string{"fit", target}, []string{"text", "json"}},
		)
	}
	runs = append(runs,
		invocation{[]string{"scan", hostileDir}, []string{"text"}},
		invocation{[]string{"scan", "-v", "--why", progFile}, []string{"text", "json"}},
		invocation{[]string{"fit", progFile}, []string{"text", "json"}},
		invocation{[]string{"check", "--max", "GLIBC=2.0", oldLib, "nosuch" + hostileNames[3]}, all},
		invocation{[]string{"bind", progFile}, all},
		invocation{[]string{"bind", "-v", progFile}, all},
		invocation{[]string{"bind", "--tree", progFile}, []string{"text"}},
		invocation{[]string{"bind", "-v", "../broken/" + progName}, all},
		invocation{[]string{"bind", "--tree", "../broken/" + progName}, []string{"text"}},
		invocation{[]string{"bind", "--strict", "-v", "../broken"}, all},
		invocation{[]string{"bind", "--strict", tree}, all},
		invocation{[]string{"bind", "--image", image}, all},
		invocation{[]string{"bind", "--image", image, "-v", "/usr/bin/prog"}, all},
		invocation{[]string{"abi", "dump", multi[1]}, []string{"text", "json"}},
		invocation{[]string{"abi", "dump", member}, []string{"text", "json"}},
		invocation{[]string{"abi", "dump", oldLib}, []string{"text"}},
		invocation{[]string{"diff", multi[0], multi[1]}, []string{"text", "json", "github", "sarif", "junit"}},
		invocation{[]string{"diff", json1, json2}, []string{"text", "json", "github", "sarif", "junit"}},
		invocation{[]string{"diff", oldLib, member}, []string{"text", "github", "sarif", "junit"}},
		invocation{[]string{"diff", "--harmless", multi[1], hostileNames[0] + "nosuch"}, []string{"text"}},
	)
	// ranges: a table of libmulti's types, built from its ABI JSON.
	table := filepath.Join(dir, "table.json")
	{
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		if code := run(context.Background(), env, []string{"ranges", "build", "--abi", "1.0=" + json1, "--abi", "2.0=" + json2, "--type", "struct *", "-o", table}); code != exitOK {
			t.Fatalf("ranges build: exit %d\n%s", code, stderr.String())
		}
	}
	runs = append(runs,
		invocation{[]string{"ranges", "build", "--abi", "1.0=" + json1, "--abi", "2.0=" + json2, "--type", "struct *"}, []string{"text", "json", "go", "html"}},
		invocation{[]string{"ranges", "show", table}, []string{"text", "json", "go", "html"}},
		invocation{[]string{"ranges", "lookup", table, "2.0"}, []string{"text"}},
		invocation{[]string{"stubs", "--glibc", "2.17", "-o", "../stubs" + hostileNames[1]}, []string{"text"}},
		invocation{[]string{"cc", "-v", "--glibc", "2.17", "--", "gcc", "-o", hostileNames[0] + ".cc", write("main.c", "int main(void) { return 0; }\n")}, []string{"text"}},
		invocation{[]string{"cc", "--glibc", "2.17", "--", "gcc", "-o", hostileNames[1] + ".cc", "-x", "c", write(hostileNames[3], "int main(void) { return 0 }\n")}, []string{"text"}},
	)
	cache := filepath.Join(dir, "cache")
	for _, r := range runs {
		for _, f := range r.formats {
			args := append([]string{}, r.args...)
			if f != "text" {
				args = append(args[:1], append([]string{"--format", f}, args[1:]...)...)
			}
			if args[0] == "abi" || args[0] == "ranges" {
				args = append([]string{args[0], r.args[1]}, append([]string{"--format", f}, r.args[2:]...)...)
			}
			name := strings.ReplaceAll(strings.Join(args, " "), dir, "$DIR")
			t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				env := guardedEnv(&stdout, &stderr)
				env.getenv = func(v string) string {
					if v == "ABIFLOOR_CACHE" {
						return cache
					}
					return ""
				}
				code := run(context.Background(), env, args)
				flushGuards(env)
				out, errOut := env.stdout.(*report.Guard), env.stderr.(*report.Guard)
				for _, s := range []struct {
					name string
					g    *report.Guard
					b    *bytes.Buffer
				}{{"stdout", out, &stdout}, {"stderr", errOut, &stderr}} {
					for _, p := range forgedLines(s.b.String(), s.g.Commands()) {
						t.Errorf("%s: %s", s.name, p)
					}
					// JSON (and ranges' Go and HTML, whose names are
					// Go and JSON string literals) keep names exact: the
					// guard's \u escapes, the languages' own, are their
					// escaping. Every other output escapes its names.
					// The compiler's own diagnostics, which cc passes on,
					// are the guard's to neutralise.
					exact := f == "json" || f == "go" || f == "html"
					passed := args[0] == "cc" && s.name == "stderr"
					if n := s.g.Neutralised(); n > 0 && !(exact && s.name == "stdout") && !passed {
						t.Errorf("%s: the output guard neutralised %d characters: a path printed a name without report.Clean:\n%s", s.name, n, s.b.String())
					}
				}
				if t.Failed() || testing.Verbose() {
					t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
				}
			})
		}
	}
}

var annotationRE = regexp.MustCompile(`^::(error|warning|notice) [^:]*::`)

// forgedLines returns what is wrong with output by the runner's rules:
// lines split at CR and LF, white space trimmed at the start and the
// characters its comparison ignores skipped, a line starting "::" is a
// command (only cmds annotations may be) and one holding "##[" is too.
// Raw bidirectional, invisible and line-separator characters, and
// controls other than LF and tab, are wrong anywhere.
func forgedLines(output string, cmds int) []string {
	var bad []string
	commands := 0
	for _, line := range strings.FieldsFunc(output, func(r rune) bool { return r == '\n' || r == '\r' }) {
		var kept strings.Builder
		for _, r := range line {
			switch {
			case r == '\t':
				kept.WriteRune(r)
			case r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029,
				unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point):
				bad = append(bad, fmt.Sprintf("raw %U in %q", r, line))
			default:
				kept.WriteRune(r)
			}
		}
		l := strings.TrimLeftFunc(kept.String(), unicode.IsSpace)
		if strings.HasPrefix(l, "::") {
			commands++
			if !annotationRE.MatchString(l) {
				bad = append(bad, fmt.Sprintf("workflow command %q", line))
			}
		}
		if strings.Contains(kept.String(), "##[") {
			bad = append(bad, fmt.Sprintf("legacy workflow command %q", line))
		}
	}
	if commands != cmds {
		bad = append(bad, fmt.Sprintf("%d lines are commands, %d were written as annotations", commands, cmds))
	}
	return bad
}
