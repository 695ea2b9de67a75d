package ccwrap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCCLine(t *testing.T) {
	dir := t.TempDir()
	rsp := filepath.Join(dir, "args.rsp")
	os.WriteFile(rsp, []byte("-o 'my app' \"x.c\"\n-Wl,-z,now\n"), 0o644)
	nested := filepath.Join(dir, "nested.rsp")
	os.WriteFile(nested, []byte("@"+rsp+" -shared"), 0o644)
	loop := filepath.Join(dir, "loop.rsp")
	os.WriteFile(loop, []byte("@"+loop), 0o644)
	// Nine levels of files, each naming the next eight times: 8^8 reads
	// within the depth bound, stopped by the count of @file words (the
	// last level is two bytes: the bound on bytes would let 64000 opens by).
	fan := filepath.Join(dir, "fan8.rsp")
	os.WriteFile(fan, []byte("-v"), 0o644)
	big := filepath.Join(dir, "big.rsp")
	os.WriteFile(big, bytes.Repeat([]byte("x.c "), maxResponseBytes/4+1), 0o644)
	for i := 7; i >= 0; i-- {
		next := fan
		fan = filepath.Join(dir, fmt.Sprintf("fan%d.rsp", i))
		os.WriteFile(fan, []byte(strings.Repeat("@"+next+" ", 8)), 0o644)
	}
	for _, tt := range []struct {
		args string
		link bool
		out  string
		exe  bool
		err  string
	}{
		{"x.c", true, "a.out", true, ""},
		{"-o prog x.c", true, "prog", true, ""},
		{"-oprog x.c", true, "prog", true, ""},
		{"--output=prog x.c", true, "prog", true, ""},
		{"--output prog x.c", true, "prog", true, ""},
		{"-o a x.c -Wl,-o,prog", true, "prog", true, ""},
		{"x.c -Wl,-o -Wl,prog", true, "prog", true, ""},
		{"x.c -Wl,--output=prog", true, "prog", true, ""},
		{"x.c -Xlinker -o -Xlinker prog", true, "prog", true, ""},
		{"x.c -Wl,-oprog", true, "prog", true, ""},
		{"x.c -Wl,-o", true, "", false, "linker option -o without a file name"},
		{"x.c -o", true, "", false, "-o without a file name"},
		{"-c x.c -o x.o", false, "", false, ""},
		{"-S x.c", false, "", false, ""},
		{"-E x.c", false, "", false, ""},
		{"-M x.c", false, "", false, ""},
		{"-MMD -MF x.d -o p x.c", true, "p", true, ""},
		{"-fsyntax-only x.c", false, "", false, ""},
		{"--version", false, "", false, ""},
		{"-v", false, "", false, ""},
		{"-v -o p x.c", true, "p", true, ""},
		{"-dumpmachine", false, "", false, ""},
		{"-print-file-name=libc.a", false, "", false, ""},
		{"-print-prog-name=ld", false, "", false, ""},
		{"-no-pie -o /dev/null -x c -", true, "/dev/null", true, ""},
		{"-shared -fPIC -o libx.so x.c", true, "libx.so", false, ""},
		{"-Wl,-shared -o libx.so x.c", true, "libx.so", false, ""},
		{"-static -o s x.c", true, "s", false, ""},
		{"-r -o x.o a.o b.o", true, "x.o", false, ""},
		{"-nostdlib -o s x.c", true, "s", false, ""},
		{"-I inc -D X -include h.h -o p x.c", true, "p", true, ""},
		{"@" + rsp, true, "my app", true, ""},
		{"@" + nested, true, "my app", false, ""},
		{"@" + loop + " x.c", false, "", false, "nested more than"},
		{"@" + fan + " x.c", false, "", false, "more than 2000 @file words"},
		{"@" + big, false, "", false, "response files larger than"},
		{"@" + filepath.Join(dir, "none") + " -c", false, "", false, ""},
	} {
		l := parseCCLine(strings.Fields(tt.args))
		var err string
		if l.err != nil {
			err = l.err.Error()
		}
		if tt.err != "" || err != "" {
			if tt.err == "" || !strings.Contains(err, tt.err) {
				t.Errorf("parseCCLine(%q) error %q, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if l.link != tt.link || (l.link && l.output != tt.out) || l.executable() != tt.exe {
			t.Errorf("parseCCLine(%q) = link %v out %q exe %v; want %v %q %v", tt.args, l.link, l.output, l.executable(), tt.link, tt.out, tt.exe)
		}
	}
}

// What the proof will read is told from the line: -pthread or -lpthread
// loads the stubs' libpthread; -r and -static bind no library and -o
// /dev/null is not proven, so nothing is read ahead for them.
func TestParseCCLineProof(t *testing.T) {
	for _, tt := range []struct {
		args             string
		pthread, preload bool
	}{
		{"-o p x.c", false, true},
		{"-pthread -o p x.c", true, true},
		{"-o p x.c -lpthread", true, true},
		{"-o p x.c -l pthread", true, true},
		{"-o p x.c -lpthreadx", false, true},
		{"-o p x.c -lm", false, true},
		{"-shared -pthread -o libx.so x.c", true, true},
		{"-static -pthread -o p x.c", true, false},
		{"-r -o x.o a.o", false, false},
		{"-o /dev/null x.c", false, false},
		{"-c -pthread x.c", false, false},
	} {
		l := parseCCLine(strings.Fields(tt.args))
		if l.pthread != tt.pthread || l.preloads() != tt.preload {
			t.Errorf("parseCCLine(%q): pthread %v preload %v, want %v %v", tt.args, l.pthread, l.preloads(), tt.pthread, tt.preload)
		}
	}
}

func TestSplitResponse(t *testing.T) {
	got := splitResponse(`a 'b c' "d\"e" f\ g  ''` + "\n")
	want := []string{"a", "b c", `d"e`, "f g", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitResponse = %q, want %q", got, want)
	}
}

func TestCxxOf(t *testing.T) {
	for in, want := range map[string]string{
		"gcc": "g++", "clang": "clang++", "cc": "c++", "/usr/bin/aarch64-linux-gnu-gcc-12": "/usr/bin/aarch64-linux-gnu-g++-12",
		"g++": "c++", "icx": "c++",
	} {
		if got := cxxOf(in); got != want {
			t.Errorf("cxxOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExplainUndefined(t *testing.T) {
	msgs := []byte("/usr/bin/ld: /tmp/x.o: in function `main':\nx.c:(.text+0x5): undefined reference to `arc4random'\n" +
		"x.c:(.text+0x9): undefined reference to `arc4random'\ncollect2: error: ld returned 1 exit status\n")
	lines, all := explainUndefined(msgs, "x86_64", "2.17")
	if !all || len(lines) != 1 || lines[0] != "arc4random: GLIBC_2.36 > 2.17" {
		t.Errorf("explainUndefined = %q, %v", lines, all)
	}
	msgs = []byte("/usr/bin/ld: /lib/x86_64-linux-gnu/libstdc++.so.6: undefined reference to `fstat64@GLIBC_2.33'\n" +
		"/usr/bin/ld: /lib/x86_64-linux-gnu/libstdc++.so.6: undefined reference to `pthread_key_create@GLIBC_2.34'\n" +
		"/usr/bin/ld: /lib/x86_64-linux-gnu/libstdc++.so.6: undefined reference to `a@GLIBC_2.34'\n" +
		"/usr/bin/ld: /lib/x86_64-linux-gnu/libstdc++.so.6: undefined reference to `b@GLIBC_2.34'\n")
	lines, all = explainUndefined(msgs, "x86_64", "2.31")
	if !all || len(lines) != 1 || lines[0] != "/lib/x86_64-linux-gnu/libstdc++.so.6 was built for a newer glibc than 2.31: it needs "+
		"fstat64@GLIBC_2.33, pthread_key_create@GLIBC_2.34, a@GLIBC_2.34 and 1 more; link one built for 2.31, or statically" {
		t.Errorf("explainUndefined(library) = %q, %v", lines, all)
	}
	lines, all = explainUndefined([]byte("ld.lld: error: undefined symbol: no_such_thing_x\n"), "x86_64", "2.17")
	if all || len(lines) != 0 {
		t.Errorf("unknown symbol explained: %q, %v", lines, all)
	}
}

// FuzzParseCCLine: any command line (words separated by NUL) is read
// without a panic, and a link always has an output or an error.
func FuzzParseCCLine(f *testing.F) {
	for _, s := range []string{"-o\x00p\x00x.c", "x.c\x00-Wl,-o", "-c\x00x.c", "-Xlinker", "@/dev/zero\x00x.c", "--output=\x00x.c", "-Wl,,,-o,,\x00a"} {
		f.Add(s)
	}
	// The same text as a response file, which may name itself.
	rsp := filepath.Join(f.TempDir(), "f.rsp")
	f.Add("@" + rsp + " @" + rsp)
	f.Fuzz(func(t *testing.T, s string) {
		l := parseCCLine(strings.Split(s, "\x00"))
		if l.link && l.err == nil && l.output == "" {
			t.Errorf("parseCCLine(%q): a link with no output and no error", s)
		}
		if err := os.WriteFile(rsp, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		l = parseCCLine([]string{"@" + rsp})
		if l.link && l.err == nil && l.output == "" {
			t.Errorf("parseCCLine(@%q): a link with no output and no error", s)
		}
	})
}
