package ccwrap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
)

// A library of this host was built against this host's glibc. Linking one
// whose own floor is above the target makes a program that cannot load
// there, and the refusal would come only after the link. zig never links
// the host's libraries, so a configure probe for an optional feature
// (zstd's -llzma, pcre2's -lreadline) fails under zig and the build goes
// on without it. abifloor does the same: a host library above the target
// is not linkable, exactly as if it were not installed, and a build that
// needs it fails saying why.

// Hidden is a host library taken out of a link.
type Hidden struct {
	Arg    string // as the command line named it: -llzma, /usr/lib/.../liblzma.so
	Path   string // the file the link editor would have taken
	Soname string // its DT_SONAME, when it has one
	Needs  string // its GLIBC floor
	Target string
}

func (h Hidden) String() string {
	name := h.Soname
	if name == "" {
		name = filepath.Base(h.Path)
	}
	return fmt.Sprintf("%s on this host needs glibc %s; link one built for %s", name, h.Needs, h.Target)
}

// noHide are the libraries whose host copies are answered for elsewhere:
// glibc's own (the stubs stand for them) and the C++ runtime (cxxRuntime).
var noHide = map[string]bool{"stdc++": true, "gcc_s": true, "gcc": true, "c": true}

// hideHostLibs returns argv without the host libraries above the target:
// -lNAME found only in the compiler's own search directories (not under the
// command's -L directories, which are the target's, nor among the stubs),
// and libraries named by a path in those directories. Words inside
// response files are left as they are.
func (w *Wrapper) hideHostLibs(ctx context.Context, c *cache.Cache, comp *glibc.Compiler, line ccLine, argv []string, stubs, target string) ([]string, []Hidden, error) {
	if line.static || line.relocatable {
		return argv, nil, nil
	}
	type cand struct {
		i, n int // argv[i:i+n] names it
		arg  string
		path string
	}
	var cands []cand
	lr := &libRefuser{c: c, comp: comp, target: target}
	sysDirs := func() ([]string, error) { return lr.searchDirs(ctx) }
	inSys := func(p string) (bool, error) {
		ds, err := sysDirs()
		for _, d := range ds {
			if filepath.Dir(filepath.Clean(p)) == filepath.Clean(d) {
				return true, nil
			}
		}
		return false, err
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		name, n := "", 1
		switch {
		case a == "-l" && i+1 < len(argv):
			name, n = argv[i+1], 2
		case strings.HasPrefix(a, "-l") && len(a) > 2 && !strings.HasPrefix(a, "-l:"):
			name = a[2:]
		case !strings.HasPrefix(a, "-") && isSharedName(a) && filepath.IsAbs(a):
			sys, err := inSys(a)
			if err != nil {
				return nil, nil, err
			}
			if sys {
				cands = append(cands, cand{i: i, n: 1, arg: a, path: a})
			}
			continue
		default:
			continue
		}
		if noHide[name] || exists(filepath.Join(stubs, "lib"+name+".so")) || exists(filepath.Join(stubs, "lib"+name+".a")) {
			continue
		}
		if found(line.libDirs, name) {
			continue // the target's own: linked as given
		}
		ds, err := sysDirs()
		if err != nil {
			return nil, nil, err
		}
		for _, d := range ds {
			if p := filepath.Join(d, "lib"+name+".so"); exists(p) {
				cands = append(cands, cand{i: i, n: n, arg: "-l" + name, path: p})
				break
			}
		}
	}
	if len(cands) == 0 {
		return argv, nil, nil
	}
	// Each candidate's floor as the pkg-config wrapper reads it:
	// remembered per file, so a warm build reads a host library once.
	var hidden []Hidden
	drop := map[int]bool{}
	for _, cd := range cands {
		info, err := lr.libFloor(ctx, cd.path)
		if err != nil {
			return nil, nil, err
		}
		if info.floor != "" && symver.Compare(info.floor, target) > 0 {
			hidden = append(hidden, Hidden{Arg: cd.arg, Path: cd.path, Soname: info.soname, Needs: info.floor, Target: target})
			for k := cd.i; k < cd.i+cd.n; k++ {
				drop[k] = true
			}
		}
	}
	if len(hidden) == 0 {
		return argv, nil, nil
	}
	out := make([]string, 0, len(argv))
	for i, a := range argv {
		if !drop[i] {
			out = append(out, a)
		}
	}
	return out, hidden, nil
}

// found reports whether libNAME.so or libNAME.a is in one of dirs.
func found(dirs []string, name string) bool {
	for _, d := range dirs {
		if exists(filepath.Join(d, "lib"+name+".so")) || exists(filepath.Join(d, "lib"+name+".a")) {
			return true
		}
	}
	return false
}

// searchDirs are the compiler's library directories, from its
// -print-search-dirs (remembered in the cache): where the link editor
// looks after the -L directories.
func searchDirs(ctx context.Context, c *cache.Cache, comp *glibc.Compiler) ([]string, error) {
	out, err := compilerAnswer(ctx, c, comp, "-print-search-dirs")
	if err != nil {
		return nil, fmt.Errorf("%s -print-search-dirs: %w", comp.Name, err)
	}
	var dirs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "libraries: ="); ok {
			for _, d := range filepath.SplitList(rest) {
				if fi, err := os.Stat(d); err == nil && fi.IsDir() {
					dirs = append(dirs, filepath.Clean(d))
				}
			}
		}
	}
	return dirs, nil
}
