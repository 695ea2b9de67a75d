package glibc

import (
	"fmt"
	"sort"
	"strings"
)

// A newer glibc's headers bind some calls to names the target release
// does not have, although it has the same function under another name
// (zig avoids this by shipping the headers of every release; abifloor
// links with the host's):
//
//   - -D_FILE_OFFSET_BITS=64 makes fcntl fcntl64 since 2.28 (sqlite3);
//   - C23 mode (the default of GCC 15, and -std=c2x) makes strtol,
//     sscanf and their family __isoc23_strtol, __isoc23_sscanf since 2.38;
//   - since 2.34 resolv.h calls res_search, res_query, dn_expand, ... by
//     their public names, which before 2.34 were __res_search, ... in
//     libresolv (Go's net package with cgo).
//
// A Redirect says that a reference to From is served at the target by To:
// the stubs' compat archive gets a hidden member defining From that jumps
// to To, so a program pulls it in only when it calls From, and its binary
// then needs To, with the target's version. Which names qualify is decided
// from the database: From must be newer than the target, To present there.
// Functions whose calling convention changed (the stat family, wrapped
// separately) are never redirected this way.
type Redirect struct {
	From, To string
	Soname   string // the library that defines To at the target
	Version  string // To's version there
}

// lfsAliases are 64-bit file-offset names that are the same function as
// the plain name where off_t is 64 bits already (the 64-bit
// architectures). On 32-bit architectures they differ, and are not
// redirected.
var lfsAliases = []string{"fcntl64"}

// resolvNames are the libresolv functions resolv.h called __NAME before
// glibc 2.34 and calls NAME since (the public names moved into libc).
var resolvNames = []string{
	"dn_comp", "dn_expand", "dn_skipname", "res_dnok", "res_hnok", "res_mailok", "res_mkquery",
	"res_nmkquery", "res_nquery", "res_nquerydomain", "res_nsearch", "res_nsend", "res_ownok",
	"res_query", "res_querydomain", "res_search", "res_send", "res_init", "res_ninit", "res_nclose",
	"ns_name_compress", "ns_name_ntop", "ns_name_pton", "ns_name_skip", "ns_name_uncompress", "ns_name_unpack",
	"ns_samename", "ns_get16", "ns_get32", "ns_put16", "ns_put32",
}

// is64 are the architectures whose off_t is 64 bits without
// _FILE_OFFSET_BITS.
var is64 = map[string]bool{"x86_64": true, "aarch64": true, "s390x": true}

// Redirects returns the redirects of arch a (with symbols) for target,
// sorted by From.
func (a *Arch) Redirects(target string) []Redirect {
	at := a.Index(target)
	newest := a.Index(a.Newest)
	var out []Redirect
	add := func(from, to string) {
		if w, ok := at.Lookup(from); ok && w.Soname != "" {
			return // the target has it: nothing to redirect
		}
		if _, ok := newest.Lookup(from); !ok {
			return // no release has it: no header emits it
		}
		w, ok := at.Lookup(to)
		if !ok || w.Soname == "" {
			return
		}
		out = append(out, Redirect{From: from, To: to, Soname: w.Soname, Version: w.Version})
	}
	if is64[a.Name] {
		for _, n := range lfsAliases {
			add(n, strings.TrimSuffix(n, "64"))
		}
	}
	for _, n := range resolvNames {
		add(n, "__"+n)
	}
	for _, l := range a.Libs {
		for _, d := range l.Defs {
			if to, ok := strings.CutPrefix(d.Name, "__isoc23_"); ok {
				add(d.Name, to)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	// A name defined in several libraries or versions is listed once.
	uniq := out[:0]
	for i, r := range out {
		if i == 0 || r.From != out[i-1].From {
			uniq = append(uniq, r)
		}
	}
	return uniq
}

// thunk is the assembly of a hidden function from that jumps to to, per
// architecture (through the PLT: to is in a shared library). i386 has
// none: its PLT needs %ebx set up by the caller, which a tail jump from
// position-independent code cannot promise.
func thunk(arch, from, to string) (string, bool) {
	var jump string
	switch arch {
	case "x86_64":
		jump = "jmp " + to + "@PLT"
	case "aarch64":
		jump = "b " + to
	case "s390x":
		jump = "jg " + to + "@PLT"
	default:
		return "", false
	}
	return fmt.Sprintf("__asm__(\".text\\n.globl %[1]s\\n.hidden %[1]s\\n.type %[1]s, @function\\n%[1]s:\\n\\t%[2]s\\n.size %[1]s, .-%[1]s\\n\");\n", from, jump), true
}
