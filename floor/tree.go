package floor

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// Rules of the loader's checks that warn rather than fail: what the target's
// loader does depends on something outside the tree and the target's base
// system. Scan reports them in Result.Advisories; Options.Strict makes
// them violations.
const (
	// RuleNotInBase: a DT_NEEDED that is neither part of the target's
	// base system (glibc's libraries and the GCC runtimes) nor shipped in
	// the tree where the loader finds it: it must come from the system,
	// and nothing says the target has it.
	RuleNotInBase = "not_in_base"
	// RuleLazyUndefined: a program bound lazily calls a function no
	// library of the target's base system defines: it starts, and the
	// first call dies unless a library loaded later (dlopen) defines it.
	RuleLazyUndefined = "lazy_undefined"
)

// advisory reports whether a violation of rule only warns.
func advisory(rule string) bool { return rule == RuleNotInBase || rule == RuleLazyUndefined }

// splitAdvisories moves the warnings out of viol.
func splitAdvisories(viol []Violation) (fail, warn []Violation) {
	fail = viol[:0]
	for _, v := range viol {
		if advisory(v.Rule) {
			warn = append(warn, v)
		} else {
			fail = append(fail, v)
		}
	}
	return fail, warn
}

// shippedIndex is what the scanned tree ships: every library by file name
// and soname, and the files that need each, so that the copy the loader
// would load for a file can be found as bind finds it.
type shippedIndex struct {
	where   map[string][]string      // name → the paths that ship it
	at      map[string]*FileReport   // directory + "/" + name → the copy there
	needers map[string][]*FileReport // name → the files that need it
	byPath  map[string]*FileReport
}

func newShippedIndex(files []FileReport) *shippedIndex {
	sh := &shippedIndex{where: map[string][]string{}, at: map[string]*FileReport{},
		needers: map[string][]*FileReport{}, byPath: map[string]*FileReport{}}
	for i := range files {
		f := &files[i]
		if f.Error != nil {
			continue
		}
		sh.byPath[f.Path] = f
		dir := path.Dir(f.Path)
		names := []string{path.Base(f.Path)}
		if f.Soname != "" && f.Soname != names[0] {
			names = append(names, f.Soname)
		}
		for _, name := range names {
			sh.where[name] = append(sh.where[name], f.Path)
			if _, ok := sh.at[dir+"/"+name]; !ok {
				sh.at[dir+"/"+name] = f
			}
		}
		for _, n := range f.Needed {
			sh.needers[n] = append(sh.needers[n], f)
		}
	}
	return sh
}

// find returns the copy of lib the tree ships where the loader looks for
// it on behalf of the file at p: a directory of p's DT_RUNPATH, or, when
// it has none, of its DT_RPATH or that of a file of the tree that needs
// it ($ORIGIN expanded, bind.SearchDirs), in the loader's order. nil when
// the tree ships none there.
func (sh *shippedIndex) find(p, lib string) *FileReport {
	f := sh.byPath[p]
	if f == nil || len(sh.where[lib]) == 0 {
		return nil
	}
	dirs, run := bind.SearchDirs(path.Dir(f.Path), f.Rpath, f.Runpath)
	if !run {
		for _, name := range []string{path.Base(f.Path), f.Soname} {
			for _, g := range sh.needers[name] {
				if g.Runpath == "" && g != f {
					d, _ := bind.SearchDirs(path.Dir(g.Path), g.Rpath, "")
					dirs = append(dirs, d...)
				}
			}
		}
	}
	for _, d := range dirs {
		if c := sh.at[path.Clean(d)+"/"+lib]; c != nil {
			return c
		}
	}
	return nil
}

// dropMetByShipped removes the limit violations the tree's own copy of a
// library answers: a program that ships libstdc++.so.6 and reaches it
// through RUNPATH $ORIGIN/../lib gets its GLIBCXX versions from that copy,
// whatever the system's libstdc++ is. The violation goes when every
// version above the limit that the file needs comes from a library the
// loader finds in the tree and that copy defines it; the copy's own needs
// (its GLIBC floor) are its own violations, as it is in the tree.
func dropMetByShipped(sh *shippedIndex, viol []Violation) []Violation {
	out := viol[:0]
	for _, v := range viol {
		if v.Rule != "" || v.Namespace == "" || !symver.Valid(v.Allowed) || !metByShipped(sh, v) {
			out = append(out, v)
		}
	}
	return out
}

func metByShipped(sh *shippedIndex, v Violation) bool {
	f := sh.byPath[v.Path]
	if f == nil {
		return false
	}
	any := false
	for _, n := range f.Needs {
		for _, ver := range n.Versions {
			ns, num, ok := symver.Split(ver)
			if !ok || !strings.EqualFold(ns, v.Namespace) || symver.Compare(num, v.Allowed) <= 0 {
				continue
			}
			c := sh.find(f.Path, n.Library)
			if c == nil || !slices.Contains(c.defines, ver) {
				return false
			}
			any = true
		}
	}
	return any
}

// notInBase reports, for a check against distro targets, every library a
// glibc file needs that is neither of the targets' base system (glibc's
// libraries, its loader, the GCC runtimes) nor shipped where the loader
// finds it: whether the target has it is the system's business, which
// the target table does not know (auditwheel's lib_whitelist, for
// distros).
func notInBase(sh *shippedIndex, files []FileReport, ts []targets.Target) []Violation {
	target := ""
	for _, t := range ts {
		if t.Kind == targets.Distro && t.Libc == Glibc {
			target = t.Name
			break
		}
	}
	if target == "" {
		return nil
	}
	var out []Violation
	for i := range files {
		f := &files[i]
		if f.Error != nil || f.Libc != Glibc {
			continue
		}
		ai := archOf(glibcArch(f.Arch))
		if ai.err != nil {
			continue
		}
		for _, n := range f.Needed {
			if ai.glibc[n] || gccRuntime[n] || isLoader(n) || sh.find(f.Path, n) != nil {
				continue
			}
			out = append(out, Violation{Path: f.Path, Rule: RuleNotInBase, Target: target, Library: n,
				Shipped: sh.where[n], Symbols: []Ref{}})
		}
	}
	return out
}

// baseCause is Cause for RuleNotInBase and RuleLazyUndefined.
func (v Violation) baseCause() string {
	if v.Rule == RuleLazyUndefined {
		first := ""
		if len(v.Symbols) > 0 {
			first = v.Symbols[0].Name
		}
		return fmt.Sprintf("lazily bound symbol: %s: no library of %s's base system defines it; it starts, and the first call dies unless a library it loads later (dlopen) defines it", first, v.targetWords())
	}
	s := fmt.Sprintf("needs %s, which must come from the system: not in %s's base (glibc and the GCC runtimes)", v.Library, v.Target)
	if len(v.Shipped) > 0 {
		s += fmt.Sprintf("; the tree ships it (%s) but on no RPATH, RUNPATH or $ORIGIN path of this file", v.Shipped[0])
	} else {
		s += " and not shipped"
	}
	return s
}
