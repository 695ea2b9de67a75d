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
// Functions whose calling convention changed (the stat family) and those
// with no other name are Polyfills instead.
type Redirect struct {
	From, To string
	Soname   string // the library that defines To at the target
	Version  string // To's version there
}

// lfsAliases are 64-bit file-offset names that are the same function as
// the plain name at every release that lacks them. fcntl64 (2.28) is
// fcntl on the 64-bit architectures, where off_t is 64 bits already. On
// i386 it is fcntl@GLIBC_2.0 as well: before 2.28 that fcntl passed its
// argument to the kernel's fcntl64 system call untouched, so it took the
// struct flock64 and F_GETLK64 (12) that code built with
// -D_FILE_OFFSET_BITS=64 passes; 2.28 gave the non-LFS fcntl its own
// conversion (fcntl@@GLIBC_2.28, glibc bug 20251) and kept fcntl@GLIBC_2.0
// as a forwarder to fcntl64, so a program bound to fcntl@GLIBC_2.0 gets
// the same calls on every release.
var lfsAliases = []string{"fcntl64"}

// chkAliases are FORTIFY checks whose plain function is a safe stand-in
// (the check is lost, the call is the same): __longjmp_chk (2.11) checks
// that longjmp unwinds towards the caller.
var chkAliases = map[string]string{"__longjmp_chk": "longjmp"}

// resolvNames are the libresolv functions resolv.h called __NAME before
// glibc 2.34 and calls NAME since (the public names moved into libc).
var resolvNames = []string{
	"dn_comp", "dn_expand", "dn_skipname", "res_dnok", "res_hnok", "res_mailok", "res_mkquery",
	"res_nmkquery", "res_nquery", "res_nquerydomain", "res_nsearch", "res_nsend", "res_ownok",
	"res_query", "res_querydomain", "res_search", "res_send", "res_init", "res_ninit", "res_nclose",
	"ns_name_compress", "ns_name_ntop", "ns_name_pton", "ns_name_skip", "ns_name_uncompress", "ns_name_unpack",
	"ns_samename", "ns_get16", "ns_get32", "ns_put16", "ns_put32",
}

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
	for _, n := range lfsAliases {
		add(n, strings.TrimSuffix(n, "64"))
	}
	for from, to := range chkAliases {
		add(from, to)
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
// architecture (to is in a shared library), assembled alone: the C
// compiler's cc1 is not needed for it, and a thunk costs an assembler run
// instead of a compile. On i386 a PLT entry of position-independent code
// needs %ebx to hold the GOT's address, which a tail jump cannot promise,
// so the thunk finds the GOT itself in %ecx (a scratch register at a call
// of a cdecl function, as every public glibc function is) and jumps
// through to's GOT entry, bypassing the PLT. The .note.GNU-stack section
// says, as a compiler's output does, that the thunk needs no executable
// stack (without it the link editor would give the program one).
func thunk(arch, from, to string) (string, bool) {
	var jump string
	switch arch {
	case "x86_64":
		jump = "jmp " + to + "@PLT"
	case "aarch64":
		jump = "b " + to
	case "s390x":
		jump = "jg " + to + "@PLT"
	case "i386":
		jump = "call 1f\n1:\tpopl %ecx\n\taddl $_GLOBAL_OFFSET_TABLE_+[.-1b], %ecx\n\tjmp *" + to + "@GOT(%ecx)"
	default:
		return "", false
	}
	return fmt.Sprintf("\t.text\n\t.globl %[1]s\n\t.hidden %[1]s\n\t.type %[1]s, %%function\n%[1]s:\n\t%[2]s\n\t.size %[1]s, .-%[1]s\n\t.section .note.GNU-stack,\"\",%%progbits\n", from, jump), true
}
