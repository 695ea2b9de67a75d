package ccwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/fixture"
)

func TestParsePkgConfigArgs(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		pkgs  []string
		print bool // errors printed
	}{
		{[]string{"--libs", "libevent"}, []string{"libevent"}, true},
		{[]string{"--exists", "--print-errors", "libevent_core >= 2"}, []string{"libevent_core"}, true},
		{[]string{"--exists", "libevent_core >= 2"}, []string{"libevent_core"}, false},
		{[]string{"--exists", "libevent_core", ">=", "2", "zlib"}, []string{"libevent_core", "zlib"}, false},
		{[]string{"--cflags", "glib-2.0>=2.50, gobject-2.0 zlib"}, []string{"glib-2.0", "gobject-2.0", "zlib"}, true},
		{[]string{"--libs", "a>=", "1.0", "b"}, []string{"a", "b"}, true},
		{[]string{"--atleast-version", "2.0", "libevent"}, []string{"libevent"}, false},
		{[]string{"--atleast-version=2.0", "libevent"}, []string{"libevent"}, false},
		{[]string{"--variable", "pcfiledir", "zlib"}, []string{"zlib"}, true},
		{[]string{"--libs", "--silence-errors", "zlib"}, []string{"zlib"}, false},
		{[]string{"--libs", "--", "-odd", "zlib"}, []string{"-odd", "zlib"}, true},
		{[]string{"--version"}, nil, true},
		{[]string{"--list-all"}, nil, true},
		{[]string{"--libs", "zlib", "zlib"}, []string{"zlib"}, true},
	} {
		pa := parsePkgConfigArgs(tt.args)
		if !reflect.DeepEqual(pa.pkgs, tt.pkgs) || pa.printErrors() != tt.print {
			t.Errorf("parsePkgConfigArgs(%q) = %q, print %v; want %q, %v", tt.args, pa.pkgs, pa.printErrors(), tt.pkgs, tt.print)
		}
	}
	if pa := parsePkgConfigArgs([]string{"--static", "--libs", "x"}); !pa.static {
		t.Error("--static not seen")
	}
}

func TestSplitPkgConfigWords(t *testing.T) {
	for in, want := range map[string][]string{
		"-L/usr/lib -levent \n":         {"-L/usr/lib", "-levent"},
		`-L/a\ b/lib -lx`:               {"-L/a b/lib", "-lx"},
		`-L"/q d" -l'y z'`:              {"-L/q d", "-ly z"},
		"":                              nil,
		"   ":                           nil,
		`trailing\`:                     {`trailing\`},
		`-I"unterminated`:               {"-Iunterminated"},
		"-Wl,-rpath,/x  -lm\t-lpthread": {"-Wl,-rpath,/x", "-lm", "-lpthread"},
	} {
		if got := splitPkgConfigWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitPkgConfigWords(%q) = %q, want %q", in, got, want)
		}
	}
	l := pkgConfigLibs([]string{"-L/a", "-L", "/b", "-lx", "-l", "y", "-l:libz.so.1", "/abs/libq.so.2", "rel.so", "-pthread"})
	want := linkLibs{dirs: []string{"/a", "/b"}, names: []string{"x", "y", ":libz.so.1"}, files: []string{"/abs/libq.so.2"}}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("pkgConfigLibs = %+v, want %+v", l, want)
	}
}

func TestParseLinkerScript(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"INPUT(libncurses.so.6 -ltinfo)\n", []string{"libncurses.so.6", "-ltinfo"}, true},
		{"/* GNU ld script */\nOUTPUT_FORMAT(elf64-x86-64)\nGROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n",
			[]string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc_nonshared.a", "/lib64/ld-linux-x86-64.so.2"}, true},
		{`INPUT("a b.so", c.so)`, []string{"a b.so", "c.so"}, true},
		{"OUTPUT_FORMAT(elf64-x86-64)", nil, false}, // no INPUT or GROUP
		{"INPUT(a.so", nil, false},
		{"INPUT(a.so))", nil, false},
		{"/* open comment", nil, false},
		{"INPUT(\"open)", nil, false},
		{"\x00INPUT(a)", nil, false},
		{"INPUT()", []string{}, true},
	} {
		got, ok := parseLinkerScript([]byte(tt.in))
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("parseLinkerScript(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	many := "INPUT(" + strings.Repeat("x.so ", maxScriptNames+1) + ")"
	if _, ok := parseLinkerScript([]byte(many)); ok {
		t.Errorf("a script of %d names was taken", maxScriptNames+1)
	}
}

func TestLibInfoRoundTrip(t *testing.T) {
	for _, in := range []libInfo{
		{floor: "2.36", soname: "libx.so.1"},
		{glibc: true, soname: "libc.so.6", floor: "2.34"},
		{},
		{script: []string{"libncurses.so.6", "-ltinfo"}},
		{script: []string{}},
	} {
		got, ok := decodeLibInfo(in.encode())
		if !ok || !reflect.DeepEqual(got, in) {
			t.Errorf("decode(encode(%+v)) = %+v, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "2.17\n2\nx\n", "2.17\n0\nx\nnot-script\n", "2.17\n"} {
		if _, ok := decodeLibInfo(bad); ok {
			t.Errorf("decodeLibInfo(%q) accepted", bad)
		}
	}
}

// TestPkgConfigHides builds, at test time, a library whose own glibc floor
// is this host's (arc4random: 2.36) and one that fits 2.17, with a .pc
// file each (and one that requires the new one, and a linker script
// naming it), and runs the real pkg-config through Wrapper.PkgConfig for
// 2.17: the new library's packages are not found, with the reason; the old
// one's are pkg-config's answer. Rebuilding the old library for the new
// floor (a new stat) changes the answer: the cache is per file and stat.
func TestPkgConfigHides(t *testing.T) {
	fixture.Need(t, "gcc", "pkg-config")
	gcc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	pc := filepath.Join(dir, "pc")
	for _, d := range []string{lib, pc} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	newSrc := "#include <stdlib.h>\nunsigned uses_new(void) { return arc4random(); }\n"
	oldSrc := "#include <stdio.h>\nvoid uses_old(void) { puts(\"old\"); }\n"
	fixture.Build(t, gcc, dir, "new.c", newSrc, "lib/libnew.so", "-shared", "-fPIC", "-Wl,-soname,libnew.so.1")
	fixture.Build(t, gcc, dir, "old.c", oldSrc, "lib/libold.so", "-shared", "-fPIC", "-Wl,-soname,libold.so.1")
	if f := floorOf(t, filepath.Join(lib, "libnew.so")); f != "2.36" && !strings.HasPrefix(f, "2.3") && !strings.HasPrefix(f, "2.4") {
		t.Skipf("libnew.so's floor is %s here: not above 2.17", f)
	}
	os.WriteFile(filepath.Join(lib, "libscript.so"), []byte("/* GNU ld script */\nINPUT(libnew.so)\n"), 0o644)
	writePC := func(name, body string) {
		t.Helper()
		s := "prefix=" + dir + "\nlibdir=" + lib + "\n\nName: " + name + "\nDescription: test\nVersion: 1.0\n" + body
		if err := os.WriteFile(filepath.Join(pc, name+".pc"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writePC("new", "Libs: -L${libdir} -lnew\n")
	writePC("old", "Libs: -L${libdir} -lold\n")
	writePC("needsnew", "Requires: new\nLibs: -L${libdir} -lold\n")
	writePC("script", "Libs: -L${libdir} -lscript\n")
	writePC("private", "Libs: -L${libdir} -lold\nLibs.private: -lnew\n")
	writePC("headers", "Cflags: -I${prefix}/include\n")
	t.Setenv("PKG_CONFIG_PATH", pc)
	t.Setenv("PKG_CONFIG_LIBDIR", pc)
	cache := filepath.Join(dir, "cache")
	pkgConfig := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		w, err := New(Options{Name: "pkg-config", Glibc: "2.17", CacheDir: cache, Stdout: &out, Stderr: &errb})
		if err != nil {
			t.Fatal(err)
		}
		code, err := w.PkgConfig(context.Background(), gcc, append([]string{"pkg-config"}, args...))
		if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string // a regular expression... kept plain: a substring
		stderr string
	}{
		{[]string{"--libs", "old"}, 0, "-lold", ""},
		{[]string{"--libs", "new"}, 1, "", "Package 'new' is hidden by abifloor: libnew.so.1 on this host needs glibc 2."},
		{[]string{"--exists", "new >= 1.0"}, 1, "", ""},
		{[]string{"--exists", "--print-errors", "new >= 1.0"}, 1, "", "Package 'new' is hidden"},
		{[]string{"--exists", "--print-errors", "--errors-to-stdout", "new"}, 1, "Package 'new' is hidden", ""},
		{[]string{"--silence-errors", "--libs", "new"}, 1, "", ""},
		{[]string{"--cflags", "old", "new"}, 1, "", "Package 'new' is hidden"},
		{[]string{"--libs", "needsnew"}, 1, "", "Package 'needsnew' is hidden by abifloor: libnew.so.1"},
		{[]string{"--libs", "script"}, 1, "", "Package 'script' is hidden by abifloor: libnew.so.1"},
		// Libs.private counts only for --static, as in the link.
		{[]string{"--libs", "private"}, 0, "-lold", ""},
		{[]string{"--static", "--libs", "private"}, 1, "", "Package 'private' is hidden"},
		{[]string{"--cflags", "headers"}, 0, "-I" + dir + "/include", ""},
		{[]string{"--modversion", "old"}, 0, "1.0", ""},
		// A package pkg-config cannot find is pkg-config's to report.
		{[]string{"--libs", "absent"}, 1, "", "absent"},
	} {
		code, stdout, stderr := pkgConfig(tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) ||
			(tt.stderr == "" && stderr != "") {
			t.Errorf("pkg-config %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
	// The answer is kept per file and stat: a rebuilt library is read
	// again.
	time.Sleep(10 * time.Millisecond)
	fixture.Build(t, gcc, dir, "old.c", newSrc, "lib/libold.so", "-shared", "-fPIC", "-Wl,-soname,libold.so.1")
	if code, _, stderr := pkgConfig("--libs", "old"); code != 1 || !strings.Contains(stderr, "Package 'old' is hidden") {
		t.Errorf("after libold.so was rebuilt for the host's glibc: exit %d, %q", code, stderr)
	}

	// Refuses answers for files, as the CMake toolchain asks.
	w, err := New(Options{Glibc: "2.17", CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	fixture.Build(t, gcc, dir, "old.c", oldSrc, "lib/libold.so", "-shared", "-fPIC", "-Wl,-soname,libold.so.1")
	h, err := w.Refuses(context.Background(), gcc, []string{filepath.Join(lib, "libold.so"), filepath.Join(lib, "libnew.so"), filepath.Join(lib, "libscript.so"), filepath.Join(dir, "new.c")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range h {
		got = append(got, filepath.Base(x.Arg)+" "+x.Soname)
	}
	if want := []string{"libnew.so libnew.so.1", "libscript.so libnew.so.1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Refuses = %q, want %q", got, want)
	}
	// For a target the new library fits, nothing is refused.
	w236, _ := New(Options{Glibc: "2.41", CacheDir: cache})
	if h, err := w236.Refuses(context.Background(), gcc, []string{filepath.Join(lib, "libnew.so")}); err != nil || len(h) != 0 {
		t.Errorf("Refuses for 2.41 = %v, %v", h, err)
	}
}

// floorOf is path's GLIBC floor by abifloor's own reading.
func floorOf(t *testing.T, path string) string {
	t.Helper()
	info, err := readLibInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.floor
}

func FuzzParsePkgConfigArgs(f *testing.F) {
	f.Add("--exists\x00--print-errors\x00libevent_core >= 2")
	f.Add("--libs\x00a>=\x001.0\x00b, c")
	f.Add("--atleast-version\x002\x00--\x00x")
	f.Fuzz(func(t *testing.T, s string) {
		pa := parsePkgConfigArgs(strings.Split(s, "\x00"))
		if len(pa.pkgs) > maxPkgs {
			t.Fatalf("%d packages", len(pa.pkgs))
		}
		for _, p := range pa.pkgs {
			if p == "" || strings.ContainsAny(p, " \t\n,<>=!") && !strings.HasPrefix(p, "-") {
				t.Fatalf("package %q", p)
			}
		}
	})
}

func FuzzSplitPkgConfigWords(f *testing.F) {
	f.Add(`-L/a\ b -l"x y" 'z'`)
	f.Add("-lm\t-lpthread\n")
	f.Fuzz(func(t *testing.T, s string) {
		words := splitPkgConfigWords(s)
		n := 0
		for _, w := range words {
			n += len(w)
		}
		if n > len(s) || len(words) > len(s) {
			t.Fatalf("%d words of %d bytes from %d bytes", len(words), n, len(s))
		}
	})
}

func FuzzParseLinkerScript(f *testing.F) {
	f.Add([]byte("INPUT(libncurses.so.6 -ltinfo)\n"))
	f.Add([]byte("/* GNU ld script */\nOUTPUT_FORMAT(elf64-x86-64)\nGROUP ( /lib/libc.so.6 AS_NEEDED ( /lib64/ld.so ) )\n"))
	f.Add([]byte(`INPUT("a b.so")`))
	f.Fuzz(func(t *testing.T, b []byte) {
		names, ok := parseLinkerScript(b)
		if !ok {
			return
		}
		if len(names) > maxScriptNames {
			t.Fatalf("%d names", len(names))
		}
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, "\n\x00") {
				t.Fatalf("name %q", n)
			}
		}
		// What decodes from the cache is what was parsed.
		info, ok := decodeLibInfo(libInfo{script: names}.encode())
		if !ok || !reflect.DeepEqual(info.script, names) {
			t.Fatalf("cache round trip of %q: %q, %v", names, info.script, ok)
		}
	})
}

// A compiler that cannot tell its search directories is an error for
// every caller that asks, not for the first only: a later -lNAME must not
// go unchecked for want of directories.
func TestSearchDirsErrorKept(t *testing.T) {
	comp, err := glibc.FindCompiler("false")
	if err != nil {
		t.Skip(err)
	}
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	comp.Answer = func(ctx context.Context, args ...string) ([]byte, error) {
		return compilerAnswer(ctx, c, comp, args...)
	}
	lr := &libRefuser{c: c, comp: comp, target: "2.17"}
	for i := range 2 {
		if dirs, err := lr.searchDirs(context.Background()); err == nil {
			t.Errorf("call %d: %v and no error from a compiler that fails", i+1, dirs)
		}
	}
}
