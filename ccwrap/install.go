package ccwrap

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/internal/atomicfile"
	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/report"
)

// Installed says what Install wrote.
type Installed struct {
	// CC and CXX are the compiler wrappers.
	CC, CXX string
	// PkgConfig is the pkg-config wrapper, "" when no pkg-config was
	// found to wrap; RealPkgConfig is the one it runs.
	PkgConfig, RealPkgConfig string
	// Toolchain is the CMake toolchain file, "" when the paths cannot be
	// written in CMake's language (Why says so).
	Toolchain string
	Why       string
}

// Install writes DIR/cc and DIR/c++: shell scripts that run this abifloor
// (self) with these options, for tools that take one compiler path (CC,
// CMAKE_C_COMPILER, cargo's linker, meson cross files). compiler is the C
// or C++ compiler named (default cc); the other of the pair is derived
// from it (gcc → g++, g++ → gcc, clang → clang++). Beside them it writes
// DIR/pkg-config, which hides from configure the packages whose libraries
// the link would refuse (abifloor pkg-config), and DIR/toolchain.cmake,
// which sets CMake's compilers and pkg-config to these and keeps
// find_library from finding such libraries.
func (w *Wrapper) Install(self, dir, compiler string) (Installed, error) {
	cc, cxx := "cc", "c++"
	if compiler != "" {
		cc, cxx = pairOf(compiler)
	}
	var inst Installed
	flags := []string{}
	if w.o.Glibc != "" {
		flags = append(flags, "--glibc", w.o.Glibc)
	} else {
		flags = append(flags, "--target", w.o.Target)
	}
	// pkg-config's flags: the target and the cache, not the
	// architecture or the proof's options.
	pcFlags := slices.Clone(flags)
	if w.o.Arch != "" {
		flags = append(flags, "--arch", w.o.Arch)
	}
	for _, l := range w.o.Dlopen {
		flags = append(flags, "--dlopen", l)
	}

	if w.o.CacheDir != "" {
		d, err := filepath.Abs(w.o.CacheDir)
		if err != nil {
			return inst, err
		}
		flags = append(flags, "--cache-dir", d)
		pcFlags = append(pcFlags, "--cache-dir", d)
	}
	pcFlags = append(pcFlags, "--cc", cc)
	cxxFlags := flags
	if w.o.CXXRuntime != "" {
		cxxFlags = append(slices.Clip(flags), "--cxx-runtime", w.o.CXXRuntime)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return inst, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return inst, err
	}
	inst.CC, inst.CXX = filepath.Join(abs, "cc"), filepath.Join(abs, "c++")
	scripts := []struct {
		name, what string
		words      []string
	}{
		{"cc", "compile and link", append(append([]string{self, "cc"}, flags...), "--", cc)},
		{"c++", "compile and link", append(append([]string{self, "c++"}, cxxFlags...), "--", cxx)},
	}
	if real := findPkgConfig(w.o.Getenv, abs); real != "" {
		inst.PkgConfig, inst.RealPkgConfig = filepath.Join(abs, "pkg-config"), real
		scripts = append(scripts, struct {
			name, what string
			words      []string
		}{"pkg-config", "pkg-config hiding the packages a link", append(append([]string{self, "pkg-config"}, pcFlags...), "--", real)})
	}
	for _, s := range scripts {
		var q []string
		for _, x := range s.words {
			q = append(q, report.ShellQuote(x))
		}
		// The comment names the release as validated; nothing of the
		// user's is written outside quotes.
		what := s.what + " for glibc " + report.ShellQuote(w.limits["GLIBC"]) + ", then prove it"
		if s.name == "pkg-config" {
			what = s.what + " for glibc " + report.ShellQuote(w.limits["GLIBC"]) + " would refuse"
		}
		script := fmt.Sprintf("#!/bin/sh\n# Written by abifloor %s --install: %s.\nexec %s \"$@\"\n",
			w.o.Name, what, strings.Join(q, " "))
		if err := atomicfile.WriteFile(filepath.Join(abs, s.name), []byte(script), 0o755); err != nil {
			return inst, err
		}
	}
	tc, err := toolchainFile(w.limits["GLIBC"], inst, append(append([]string{self, "pkg-config"}, pcFlags...), "--library"))
	if err != nil {
		inst.Why = "no toolchain.cmake: " + err.Error()
		return inst, nil
	}
	inst.Toolchain = filepath.Join(abs, "toolchain.cmake")
	if err := atomicfile.WriteFile(inst.Toolchain, []byte(tc), 0o644); err != nil {
		return inst, err
	}
	return inst, nil
}

// findPkgConfig is the pkg-config (or pkgconf) on PATH that is not in
// dir nor a wrapper abifloor wrote (which would run itself), or "".
func findPkgConfig(getenv func(string) string, dir string) string {
	for _, name := range []string{"pkg-config", "pkgconf"} {
		for _, d := range filepath.SplitList(getenv("PATH")) {
			if d == "" || !filepath.IsAbs(d) {
				continue // the working directory: not where a tool is installed
			}
			p := filepath.Join(d, name)
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
				continue
			}
			if same, err := os.Stat(filepath.Join(dir, name)); err == nil && os.SameFile(fi, same) {
				continue
			}
			if writtenByAbifloor(p) {
				continue
			}
			return p
		}
	}
	return ""
}

// writtenByAbifloor reports whether p starts as Install's scripts do.
func writtenByAbifloor(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := io.ReadFull(f, b)
	return strings.HasPrefix(string(b[:n]), "#!/bin/sh\n# Written by abifloor ")
}

// toolchainFile is DIR/toolchain.cmake: CMake's compilers are the
// wrappers, its pkg-config the wrapper, and find_library is wrapped so
// that a shared library it finds which the link would refuse (refuses
// asked with the path: abifloor pkg-config --library) is NOTFOUND, as if
// it were not installed (pcre2's CMake found the host's libreadline by
// path, without a link test, and its last link failed). find_library is
// defined once per CMake run: a second definition would make
// _find_library the first, which calls itself.
func toolchainFile(release string, inst Installed, refuses []string) (string, error) {
	q := func(s string) (string, error) { return cmakeQuote(s) }
	var b strings.Builder
	cc, err := q(inst.CC)
	if err != nil {
		return "", err
	}
	cxx, err := q(inst.CXX)
	if err != nil {
		return "", err
	}
	var words []string
	for _, r := range refuses {
		x, err := q(r)
		if err != nil {
			return "", err
		}
		words = append(words, x)
	}
	// release is numbers and dots (checkRelease).
	fmt.Fprintf(&b, "# Written by abifloor cc --install: build with CMake for glibc %s:\n#   cmake -DCMAKE_TOOLCHAIN_FILE=<this file> ...\n", release)
	b.WriteString("# C and C++ compile and link through the wrappers beside this file, and\n" +
		"# neither pkg-config nor find_library finds a library such a link would\n" +
		"# refuse (one of this host's, built for a newer glibc): as if it were\n" +
		"# not installed, as under zig.\n")
	fmt.Fprintf(&b, "set(CMAKE_C_COMPILER %s)\nset(CMAKE_CXX_COMPILER %s)\n", cc, cxx)
	if inst.PkgConfig != "" {
		pc, err := q(inst.PkgConfig)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "set(PKG_CONFIG_EXECUTABLE %s CACHE FILEPATH \"pkg-config, through abifloor\")\n", pc)
	}
	fmt.Fprintf(&b, "set(_ABIFLOOR_REFUSES %s)\n", strings.Join(words, " "))
	fmt.Fprintf(&b, `get_property(_abifloor_defined GLOBAL PROPERTY _ABIFLOOR_FIND_LIBRARY SET)
if(NOT _abifloor_defined)
  set_property(GLOBAL PROPERTY _ABIFLOOR_FIND_LIBRARY 1)
  function(find_library _abifloor_var)
    _find_library(${ARGV})
    set(_abifloor_lib "${${_abifloor_var}}")
    if(_abifloor_lib MATCHES "\\.so(\\.[0-9]+)*$" AND EXISTS "${_abifloor_lib}")
      execute_process(COMMAND ${_ABIFLOOR_REFUSES} "${_abifloor_lib}"
        RESULT_VARIABLE _abifloor_rc OUTPUT_VARIABLE _abifloor_why ERROR_VARIABLE _abifloor_err
        OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
      if(_abifloor_rc EQUAL 1)
        message(STATUS "abifloor: not found for glibc %s: ${_abifloor_why}")
        set(${_abifloor_var} "${_abifloor_var}-NOTFOUND" CACHE FILEPATH "refused by abifloor: ${_abifloor_why}" FORCE)
        set(${_abifloor_var} "${_abifloor_var}-NOTFOUND" PARENT_SCOPE)
      elseif(NOT _abifloor_rc EQUAL 0)
        message(WARNING "abifloor pkg-config --library ${_abifloor_lib}: ${_abifloor_err}")
      endif()
    endif()
  endfunction()
endif()
`, release)
	return b.String(), nil
}

// cmakeQuote writes s as a CMake quoted argument. A semicolon would split
// the value where it is used as a list (COMMAND), and a NUL cannot be
// written: both are refused.
func cmakeQuote(s string) (string, error) {
	if strings.ContainsAny(s, ";\x00") {
		return "", fmt.Errorf("%q holds a character CMake cannot take in a command", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\', '"', '$', '@':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString("\\n")
		case '\r':
			b.WriteString("\\r")
		case '\t':
			b.WriteString("\\t")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// SelfPath is the path of this program as it was started (arg0: not
// with symbolic links resolved, since a multi-call binary dispatches on
// its name), for the wrapper scripts to run.
func SelfPath(arg0 string) (string, error) {
	if !strings.Contains(arg0, "/") {
		return run.LookPath(arg0)
	}
	return filepath.Abs(arg0)
}

// FromEnv serves tools that run only the first word of $CC: Go's linker
// probes flags with CC[0] alone ("abifloor -m64 -o a.out -no-pie
// trivial.c"), so with CC="abifloor cc --glibc 2.17 -- gcc" every probe
// failed and Go linked a PIE with text relocations. A command line (args,
// after the program's name self) that starts with a compiler flag, run
// while $CC (or $CXX) is "self cc ...", is taken as that compiler's: FromEnv
// returns the command ("cc" or "c++") and its arguments.
func FromEnv(self string, args []string, getenv func(string) string) (cmd string, cmdArgs []string, ok bool) {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || args[0] == "-h" || args[0] == "--help" {
		return "", nil, false
	}
	for _, v := range []string{"CC", "CXX"} {
		w := strings.Fields(getenv(v))
		if len(w) > 2 && filepath.Base(w[0]) == filepath.Base(self) && (w[1] == "cc" || w[1] == "c++") {
			return w[1], append(w[2:len(w):len(w)], args...), true
		}
	}
	return "", nil, false
}

// pairOf is the C and C++ drivers of one toolchain, from either of them:
// gcc or g++ → gcc, g++; clang++ → clang, clang++.
func pairOf(compiler string) (cc, cxx string) {
	dir, base := filepath.Split(compiler)
	if !strings.Contains(base, "++") {
		return compiler, cxxOf(compiler)
	}
	for _, r := range []struct{ c, cxx string }{{"clang", "clang++"}, {"gcc", "g++"}, {"cc", "c++"}} {
		if i := strings.LastIndex(base, r.cxx); i >= 0 {
			return dir + base[:i] + r.c + base[i+len(r.cxx):], compiler
		}
	}
	return "cc", compiler
}

// cxxOf is the C++ driver beside a C compiler: gcc → g++, clang → clang++,
// aarch64-linux-gnu-gcc-12 → aarch64-linux-gnu-g++-12.
func cxxOf(cc string) string {
	dir, base := filepath.Split(cc)
	for _, r := range []struct{ c, cxx string }{{"clang", "clang++"}, {"gcc", "g++"}, {"cc", "c++"}} {
		if i := strings.LastIndex(base, r.c); i >= 0 && !strings.Contains(base, "++") {
			return dir + base[:i] + r.cxx + base[i+len(r.c):]
		}
	}
	return "c++"
}
