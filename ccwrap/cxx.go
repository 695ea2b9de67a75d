package ccwrap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
)

// cxxRuntimeFormat changes when the C++ runtime entry changes.
const cxxRuntimeFormat = "2"

// The C++ runtime files of the compiler: what decides whether the target
// can use the host's shared runtime, and what a static link takes.
var cxxRuntimeFiles = []string{"libstdc++.so", "libgcc_s.so.1", "libstdc++.a", "libgcc_eh.a"}

// cxxRuntime decides how c++ links the C++ runtime for the target and
// returns the arguments that do it: none when the host's libstdc++.so.6
// and libgcc_s.so.1 load there, else -static-libstdc++ -static-libgcc and
// the polyfill object for what the static runtime needs of a newer glibc,
// with why the shared runtime would not do.
// The decision and the object are cached, keyed by the compiler and by the
// runtime files themselves (a libstdc++6 upgrade changes them, not g++).
func (w *Wrapper) cxxRuntime(ctx context.Context, c *cache.Cache, so glibc.StubOptions, a *glibc.Arch, static bool) (args []string, why string, err error) {
	files, err := findRuntimeFiles(ctx, c, so.Compiler)
	if err != nil {
		return nil, "", err
	}
	key := []string{"cxx-runtime", cxxRuntimeFormat, so.Key(a), w.limits["GLIBCXX"], fmt.Sprint(static)}
	for _, n := range cxxRuntimeFiles {
		p := files[n]
		if fi, err := os.Stat(p); err == nil {
			key = append(key, fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano()))
		} else {
			key = append(key, n+" missing")
		}
	}
	dir, err := c.Get(ctx, strings.Join(key, "\x00"), func(tmp, final string) error {
		need, why := w.needStaticRuntime(ctx, files, so.Target)
		if static && !need {
			need, why = true, "asked for"
		}
		static := need
		rt := "shared\n"
		if static {
			var ars []string
			for _, n := range []string{"libstdc++.a", "libgcc_eh.a"} {
				if files[n] == "" {
					return fmt.Errorf("%s: the host's C++ runtime needs glibc above %s (%s) and %s has no %s to link statically",
						so.CC, so.Target, why, so.CC, n)
				}
				ars = append(ars, files[n])
			}
			_, supplied, libs, err := glibc.WriteCXXPolyfills(ctx, tmp, so, ars)
			if err != nil {
				return err
			}
			rt = fmt.Sprintf("static\nwhy %s\npolyfills %s\nlibs %s\n", why, strings.Join(supplied, " "), strings.Join(libs, " "))
		}
		return os.WriteFile(filepath.Join(tmp, "runtime"), []byte(rt), 0o644)
	})
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, "runtime"))
	if err != nil {
		return nil, "", err
	}
	lines := strings.Split(string(b), "\n")
	if lines[0] != "static" {
		return nil, "", nil
	}
	args = []string{"-static-libstdc++", "-static-libgcc"}
	if obj := filepath.Join(dir, glibc.CXXPolyfillObject); exists(obj) {
		args = append(args, obj)
	}
	for _, l := range lines {
		if r, ok := strings.CutPrefix(l, "why "); ok {
			why = r
		}
		if libs, ok := strings.CutPrefix(l, "libs "); ok {
			// Shared libraries serve references that come after them, so
			// these may precede the runtime the driver adds last.
			for _, f := range strings.Fields(libs) {
				if strings.HasPrefix(f, "-l") {
					args = append(args, f)
				}
			}
		}
	}
	return args, why, nil
}

// needStaticRuntime: does the host's shared C++ runtime need more than the
// target has? Its own GLIBC floor decides, and, with a target that limits
// GLIBCXX, the version of libstdc++.so.6 (libstdc++.so.6.0.30 provides
// GLIBCXX_3.4.30).
func (w *Wrapper) needStaticRuntime(ctx context.Context, files map[string]string, target string) (bool, string) {
	var paths []string
	for _, n := range []string{"libstdc++.so", "libgcc_s.so.1"} {
		if p, err := filepath.EvalSymlinks(files[n]); err == nil && files[n] != "" {
			paths = append(paths, p)
		}
	}
	res := floor.Scan(ctx, paths, floor.Options{Limits: floor.Limits{"GLIBC": target}})
	for _, v := range res.Violations {
		return true, fmt.Sprintf("%s needs GLIBC %s", filepath.Base(v.Path), v.Required)
	}
	if lim := w.limits["GLIBCXX"]; lim != "" && len(paths) > 0 {
		if n, ok := strings.CutPrefix(filepath.Base(paths[0]), "libstdc++.so.6.0."); ok {
			if have := "3.4." + n; symver.Compare(have, lim) > 0 {
				return true, fmt.Sprintf("libstdc++.so.6 provides GLIBCXX %s, above %s", have, lim)
			}
		}
	}
	return false, ""
}

// beyondTargetCXX says why the output, linked against the shared C++
// runtime, needs more of it than the target's runtime has (the target
// table's GLIBCXX, CXXABI and GCC), or "" when the target's has it all.
func (w *Wrapper) beyondTargetCXX(ctx context.Context, output string) string {
	lim := floor.Limits{}
	for _, ns := range []string{"GLIBCXX", "CXXABI", "GCC"} {
		if v := w.limits[ns]; v != "" {
			lim[ns] = v
		}
	}
	res := floor.Scan(ctx, []string{output}, floor.Options{Limits: lim})
	if len(res.Files) != 1 || res.Files[0].Error != nil || res.Incomplete {
		return "the output's needs of the C++ runtime could not be read"
	}
	for _, v := range res.Violations {
		return fmt.Sprintf("it needs %s %s, above %s's %s", v.Namespace, v.Required, w.o.Target, v.Allowed)
	}
	return ""
}

// findRuntimeFiles finds the runtime files as the compiler's
// -print-file-name would, from its -print-search-dirs (one run per
// compiler binary, remembered in the cache; the files are looked for on
// every run).
func findRuntimeFiles(ctx context.Context, c *cache.Cache, cxx *glibc.Compiler) (map[string]string, error) {
	dirs, err := searchDirs(ctx, c, cxx)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, n := range cxxRuntimeFiles {
		for _, d := range dirs {
			p := filepath.Join(d, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				m[n] = filepath.Clean(p)
				break
			}
		}
	}
	return m, nil
}
