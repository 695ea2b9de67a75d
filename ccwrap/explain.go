package ccwrap

import (
	"fmt"
	"strings"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/lazyre"
)

// Undefined symbols, as GNU ld (quoted `x' or ‘x’) and lld name them; and
// a shared library's versioned references, which GNU ld reports with the
// library's name.
var (
	undefinedRE    = lazyre.New("undefined reference to [`\u2018]([^'\u2019\n]+)['\u2019]|undefined symbol: ([^\\s(]+)")
	libUndefinedRE = lazyre.New("([^\\s:]+\\.so(?:\\.[0-9]+)*): undefined reference to [`\u2018]([^'\u2019@\n]+@[^'\u2019\n]+)['\u2019]")
)

// explainUndefined reads the link editor's messages for symbols it could
// not find and says, for each one glibc knows, what to do: the library
// that has it at the target, or the release that added it. A shared
// library of the host that needs a newer glibc gets one line naming it.
// all is true when every undefined symbol was explained.
func explainUndefined(msgs []byte, arch, target string) (lines []string, all bool) {
	ms := undefinedRE().FindAllSubmatch(msgs, -1)
	if len(ms) == 0 {
		return nil, false
	}
	a, err := glibc.LoadArch(arch, true)
	if err != nil {
		return nil, false
	}
	ix := a.Index(target)
	all = true
	fromLib := map[string]bool{}
	var libs []string
	needs := map[string][]string{}
	for _, m := range libUndefinedRE().FindAllSubmatch(msgs, -1) {
		lib, ref := string(m[1]), string(m[2])
		if !fromLib[ref] {
			fromLib[ref] = true
			if len(needs[lib]) == 0 {
				libs = append(libs, lib)
			}
			needs[lib] = append(needs[lib], ref)
		}
	}
	for _, lib := range libs {
		refs := needs[lib]
		more := ""
		if len(refs) > 3 {
			more = fmt.Sprintf(" and %d more", len(refs)-3)
			refs = refs[:3]
		}
		lines = append(lines, fmt.Sprintf("%s was built for a newer glibc than %s: it needs %s%s; link one built for %s, or statically",
			lib, target, strings.Join(refs, ", "), more, target))
	}
	seen := map[string]bool{}
	for _, m := range ms {
		full := string(m[1]) + string(m[2])
		if fromLib[full] {
			continue
		}
		name, _, _ := strings.Cut(full, "@")
		if seen[name] {
			continue
		}
		seen[name] = true
		if l, ok := glibcHint(ix, name, target); ok {
			lines = append(lines, l)
		} else {
			all = false
		}
	}
	return lines, all
}

// glibcHint says what to do about a glibc symbol a link lacks: the library
// that has it at the target, or the release that added it (and, when the
// target's headers called it by a __ name, where that one is:
// res_query was __res_query in libresolv before 2.34).
func glibcHint(ix *glibc.Index, name, target string) (string, bool) {
	w, ok := ix.Lookup(name)
	switch {
	case ok && w.Soname != "" && glibc.LinkFlag(w.Soname) != "":
		return fmt.Sprintf("%s is in %s in glibc %s: add %s", name, w.Soname, target, glibc.LinkFlag(w.Soname)), true
	case ok && w.Newer != "":
		l := fmt.Sprintf("%s: %s > %s", name, w.Newer, target)
		if old, ok := ix.Lookup("__" + name); ok && old.Soname != "" {
			l += fmt.Sprintf(" (glibc %s's headers call __%s, in %s", target, name, old.Soname)
			if f := glibc.LinkFlag(old.Soname); f != "" {
				l += ": build with those headers and " + f
			}
			l += ")"
		}
		return l, true
	}
	return "", false
}
