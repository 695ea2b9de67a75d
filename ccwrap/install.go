package ccwrap

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/internal/atomicfile"
	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/report"
)

// Install writes DIR/cc and DIR/c++: shell scripts that run this abifloor
// (self) with these options, for tools that take one compiler path (CC,
// CMAKE_C_COMPILER, cargo's linker, meson cross files). compiler is the C
// or C++ compiler named (default cc); the other of the pair is derived
// from it (gcc → g++, g++ → gcc, clang → clang++).
func (w *Wrapper) Install(self, dir, compiler string) error {
	cc, cxx := "cc", "c++"
	if compiler != "" {
		cc, cxx = pairOf(compiler)
	}
	flags := []string{}
	if w.o.Glibc != "" {
		flags = append(flags, "--glibc", w.o.Glibc)
	} else {
		flags = append(flags, "--target", w.o.Target)
	}
	if w.o.Arch != "" {
		flags = append(flags, "--arch", w.o.Arch)
	}
	for _, l := range w.o.Dlopen {
		flags = append(flags, "--dlopen", l)
	}

	if w.o.CacheDir != "" {
		d, err := filepath.Abs(w.o.CacheDir)
		if err != nil {
			return err
		}
		flags = append(flags, "--cache-dir", d)
	}
	cxxFlags := flags
	if w.o.CXXRuntime != "" {
		cxxFlags = append(slices.Clip(flags), "--cxx-runtime", w.o.CXXRuntime)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range []struct {
		name, compiler string
		flags          []string
	}{{"cc", cc, flags}, {"c++", cxx, cxxFlags}} {
		words := append([]string{self, s.name}, s.flags...)
		words = append(words, "--", s.compiler)
		var q []string
		for _, x := range words {
			q = append(q, report.ShellQuote(x))
		}
		// The comment names the release as validated; nothing of the
		// user's is written outside quotes.
		script := fmt.Sprintf("#!/bin/sh\n# Written by abifloor %s --install: compile and link for glibc %s, then prove it.\nexec %s \"$@\"\n",
			w.o.Name, report.ShellQuote(w.limits["GLIBC"]), strings.Join(q, " "))
		if err := atomicfile.WriteFile(filepath.Join(dir, s.name), []byte(script), 0o755); err != nil {
			return err
		}
	}
	return nil
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
