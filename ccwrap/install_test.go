package ccwrap

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseStrict: a release is numbers and dots; anything else (a
// newline and a command, as an attacker would pass to --install) is
// refused before anything is written.
func TestReleaseStrict(t *testing.T) {
	for _, r := range []string{"2.17\ntouch X #", "2.17;id", "2", "2.17.1.1", "2.x", " 2.17", "2.17 ", "GLIBC_2.17", "2..17", "2.17$(id)", strings.Repeat("1.", 20) + "1"} {
		_, err := New(Options{Glibc: r})
		var re *ReleaseError
		if !errors.As(err, &re) {
			t.Errorf("New(Glibc: %q) = %v, want a ReleaseError", r, err)
		}
	}
	for _, r := range []string{"2.17", "2.41", "2.2.5"} {
		if _, err := New(Options{Glibc: r}); err != nil {
			t.Errorf("New(Glibc: %q) = %v", r, err)
		}
	}
}

// TestInstallQuotes: every word written into a wrapper script is quoted,
// so a path holding a quote, a newline, $(...) or a backquote reaches the
// program as the same bytes and runs nothing.
func TestInstallQuotes(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the wrappers")
	}
	dir := t.TempDir()
	odd := filepath.Join(dir, "it's a $(touch PWNED) `touch PWNED2`\nx")
	if err := os.MkdirAll(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	// self stands for abifloor: it prints its arguments, one a line.
	self := filepath.Join(odd, "self")
	os.WriteFile(self, []byte("#!"+sh+"\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755)
	// The pkg-config the wrapper runs, found on PATH at install.
	tools := filepath.Join(odd, "tools")
	os.MkdirAll(tools, 0o755)
	os.WriteFile(filepath.Join(tools, "pkg-config"), []byte("#!"+sh+"\nexit 0\n"), 0o755)
	getenv := func(k string) string {
		if k == "PATH" {
			return tools
		}
		return ""
	}
	w, err := New(Options{Name: "c++", CXX: true, Glibc: "2.17", CacheDir: filepath.Join(odd, "cache"), Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	inst := filepath.Join(odd, "bin")
	installed, err := w.Install(self, inst, "g++")
	if err != nil {
		t.Fatal(err)
	}
	if installed.RealPkgConfig != filepath.Join(tools, "pkg-config") || installed.Toolchain == "" {
		t.Fatalf("Install = %+v", installed)
	}
	for name, want := range map[string]string{
		"cc":         "cc --glibc 2.17 --cache-dir " + filepath.Join(odd, "cache") + " -- gcc -O2",
		"c++":        "c++ --glibc 2.17 --cache-dir " + filepath.Join(odd, "cache") + " -- g++ -O2",
		"pkg-config": "pkg-config --glibc 2.17 --cache-dir " + filepath.Join(odd, "cache") + " --cc gcc -- " + filepath.Join(tools, "pkg-config") + " -O2",
	} {
		cmd := exec.Command(filepath.Join(inst, name), "-O2")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := strings.Join(strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"), " "); got != strings.ReplaceAll(want, "\n", " ") {
			t.Errorf("%s ran with %q, want %q", name, got, want)
		}
	}
	// The toolchain file, read by CMake, names the same bytes.
	if cmake, err := exec.LookPath("cmake"); err == nil {
		tc, err := cmakeQuote(installed.Toolchain)
		if err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(dir, "read.cmake")
		os.WriteFile(script, []byte("include("+tc+")\nmessage(\"CC=${CMAKE_C_COMPILER}|\")\nmessage(\"PC=${PKG_CONFIG_EXECUTABLE}|\")\n"+
			"string(REPLACE \";\" \"|\" r \"${_ABIFLOOR_REFUSES}\")\nmessage(\"R=${r}|\")\n"), 0o644)
		cmd := exec.Command(cmake, "-P", script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cmake -P: %v\n%s", err, out)
		}
		want := "CC=" + filepath.Join(inst, "cc") + "|\nPC=" + filepath.Join(inst, "pkg-config") + "|\nR=" +
			strings.Join([]string{self, "pkg-config", "--glibc", "2.17", "--cache-dir", filepath.Join(odd, "cache"), "--cc", "gcc", "--library"}, "|") + "|\n"
		if string(out) != want {
			t.Errorf("cmake reads the toolchain file as\n%q, want\n%q", out, want)
		}
	}
	// A path CMake cannot take in a command: no toolchain file, and why.
	semi := filepath.Join(dir, "a;b")
	if got, err := w.Install(self, semi, "gcc"); err != nil || got.Toolchain != "" || !strings.Contains(got.Why, "CMake") {
		t.Errorf("Install into %q = %+v, %v", semi, got, err)
	}
	for _, p := range []string{"PWNED", "PWNED2"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("the wrapper ran a command from a path: %s exists", p)
		}
	}
}

func TestPairOf(t *testing.T) {
	for in, want := range map[string][2]string{
		"gcc": {"gcc", "g++"}, "g++": {"gcc", "g++"}, "clang++": {"clang", "clang++"},
		"c++": {"cc", "c++"}, "/usr/bin/aarch64-linux-gnu-g++-12": {"/usr/bin/aarch64-linux-gnu-gcc-12", "/usr/bin/aarch64-linux-gnu-g++-12"},
	} {
		if cc, cxx := pairOf(in); cc != want[0] || cxx != want[1] {
			t.Errorf("pairOf(%q) = %q, %q; want %q", in, cc, cxx, want)
		}
	}
}
