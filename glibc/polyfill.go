package glibc

import (
	"fmt"
	"sort"
	"strings"
)

// A name the host's headers emit that the target lacks, with no other name
// for the same function there (a Redirect), may still be written from what
// the target has: FORTIFY's newer checks are a size test in front of a
// function every release has, the stat family before 2.33 called __xstat
// with a structure version, __libc_single_threaded is a variable whose
// answer 0 ("perhaps not single-threaded") is always safe. Each is a
// hidden member of the stubs' compat archive, pulled in only by a program
// that uses it.
//
// The table says what each polyfill calls; the database decides the rest:
// a polyfill is built for a target that lacks its name and has every
// function it calls (so __strlcpy_chk, which would call strlcpy, 2.38, is
// never built before 2.38, and __poll_chk not before 2.4's __chk_fail).

// Polyfill is one compat member written in C for a target.
type Polyfill struct {
	Name  string
	Added string // the release that added Name: 2.25
	// Calls are the target's symbols it uses.
	Calls []string
}

// polyfillDef is a polyfill's source. In src, HIDDEN is the visibility
// attribute, STAT_VER and MKNOD_VER the architecture's _STAT_VER and
// _MKNOD_VER (only in entries with xstat set); src declares what it calls
// itself, and includes only headers that do not declare its own name with
// another type.
type polyfillDef struct {
	name  string
	calls []string
	xstat bool
	// helpers are static definitions it shares with other polyfills:
	// a unit of several defines each once, after every header.
	helpers []string
	src     string
}

// statVer and mknodVer are _STAT_VER and _MKNOD_VER of glibc's __xstat
// and __xmknod families before 2.33, per architecture (glibc's
// xstatver.h: i386 has the structure version 3 and the mknod version 1,
// the 64-bit architectures 1 and 0, the generic ones, aarch64, 0 and 0).
var (
	statVer  = map[string]int{"x86_64": 1, "i386": 3, "aarch64": 0, "s390x": 1}
	mknodVer = map[string]int{"x86_64": 0, "i386": 1, "aarch64": 0, "s390x": 0}
)

// chk is the declaration of __chk_fail, which every FORTIFY check calls
// when the buffer is too small: it prints "buffer overflow detected" and
// aborts.
const chk = "extern void __chk_fail(void) __attribute__((noreturn));\n"

var polyfillDefs = []polyfillDef{
	// The stat family (2.33): before, libc_nonshared.a had static
	// wrappers calling __xstat(_STAT_VER, ...); the host's has none.
	{name: "stat", calls: []string{"__xstat"}, xstat: true, src: "extern int __xstat(int, const char *, void *);\nHIDDEN int stat(const char *p, void *b) { return __xstat(STAT_VER, p, b); }\n"},
	{name: "lstat", calls: []string{"__lxstat"}, xstat: true, src: "extern int __lxstat(int, const char *, void *);\nHIDDEN int lstat(const char *p, void *b) { return __lxstat(STAT_VER, p, b); }\n"},
	{name: "fstat", calls: []string{"__fxstat"}, xstat: true, src: "extern int __fxstat(int, int, void *);\nHIDDEN int fstat(int fd, void *b) { return __fxstat(STAT_VER, fd, b); }\n"},
	{name: "fstatat", calls: []string{"__fxstatat"}, xstat: true, src: "extern int __fxstatat(int, int, const char *, void *, int);\nHIDDEN int fstatat(int d, const char *p, void *b, int f) { return __fxstatat(STAT_VER, d, p, b, f); }\n"},
	{name: "stat64", calls: []string{"__xstat64"}, xstat: true, src: "extern int __xstat64(int, const char *, void *);\nHIDDEN int stat64(const char *p, void *b) { return __xstat64(STAT_VER, p, b); }\n"},
	{name: "lstat64", calls: []string{"__lxstat64"}, xstat: true, src: "extern int __lxstat64(int, const char *, void *);\nHIDDEN int lstat64(const char *p, void *b) { return __lxstat64(STAT_VER, p, b); }\n"},
	{name: "fstat64", calls: []string{"__fxstat64"}, xstat: true, src: "extern int __fxstat64(int, int, void *);\nHIDDEN int fstat64(int fd, void *b) { return __fxstat64(STAT_VER, fd, b); }\n"},
	{name: "fstatat64", calls: []string{"__fxstatat64"}, xstat: true, src: "extern int __fxstatat64(int, int, const char *, void *, int);\nHIDDEN int fstatat64(int d, const char *p, void *b, int f) { return __fxstatat64(STAT_VER, d, p, b, f); }\n"},
	// mknod and mknodat (2.33) passed the device number by address.
	{name: "mknod", calls: []string{"__xmknod"}, xstat: true, src: "extern int __xmknod(int, const char *, unsigned int, unsigned long long *);\nHIDDEN int mknod(const char *p, unsigned int m, unsigned long long d) { return __xmknod(MKNOD_VER, p, m, &d); }\n"},
	{name: "mknodat", calls: []string{"__xmknodat"}, xstat: true, src: "extern int __xmknodat(int, int, const char *, unsigned int, unsigned long long *);\nHIDDEN int mknodat(int fd, const char *p, unsigned int m, unsigned long long d) { return __xmknodat(MKNOD_VER, fd, p, m, &d); }\n"},

	// libstdc++'s headers read it (2.32) to skip atomic reference counts
	// while a process has one thread. 0 means "perhaps threads": atomics
	// are always used, as before 2.32.
	{name: "__libc_single_threaded", src: "HIDDEN char __libc_single_threaded = 0;\n"},

	// explicit_bzero (2.25) is memset that the compiler may not remove:
	// the asm makes the zeroed memory observed.
	{name: "explicit_bzero", calls: []string{"memset"}, src: "#include <stddef.h>\nextern void *memset(void *, int, size_t);\nHIDDEN void explicit_bzero(void *p, size_t n) { memset(p, 0, n); __asm__ __volatile__(\"\" : : \"r\"(p) : \"memory\"); }\n"},

	// The kernel's random bytes, for code written for 2.25 (getrandom,
	// getentropy) and 2.36 (arc4random): the host's headers declare them,
	// so a configure probe that finds them missing makes a project
	// compile its own copy, which those declarations then refuse
	// (libevent's static arc4random_buf). Each is the getrandom system
	// call (Linux 3.17), else /dev/urandom; glibc's arc4random since 2.36
	// is the same system call, with no buffer of its own.
	{name: "getrandom", calls: randomCalls, src: randomPre + `HIDDEN ssize_t getrandom(void *buf, size_t n, unsigned int flags) {
	long r = -1;
#ifdef SYS_getrandom
	r = syscall(SYS_getrandom, buf, n, flags);
	if (r >= 0 || errno != ENOSYS) return r;
#endif
	/* No system call (before Linux 3.17): one read of the device it
	   names, as the call would return what it has. */
	int fd = open((flags & 2) ? "/dev/random" : "/dev/urandom", O_RDONLY | O_CLOEXEC | ((flags & 1) ? O_NONBLOCK : 0));
	if (fd < 0) return -1;
	r = read(fd, buf, n);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}
`},
	{name: "getentropy", calls: randomCalls, helpers: []string{fillSource}, src: randomPre + `HIDDEN int getentropy(void *buf, size_t n) {
	if (n > 256) { errno = EIO; return -1; }
	return abifloor_fill(buf, n);
}
`},
	{name: "arc4random", calls: arc4Calls, helpers: []string{fillSource, arc4Fatal}, src: randomPre + `HIDDEN uint32_t arc4random(void) {
	uint32_t v;
	if (abifloor_fill(&v, sizeof v) != 0) abifloor_fatal();
	return v;
}
`},
	{name: "arc4random_buf", calls: arc4Calls, helpers: []string{fillSource, arc4Fatal}, src: randomPre + `HIDDEN void arc4random_buf(void *p, size_t n) {
	if (abifloor_fill(p, n) != 0) abifloor_fatal();
}
`},
	// Uniform without modulo bias: a value below 2^32 mod bound is drawn
	// again, so each remainder has the same number of values left.
	{name: "arc4random_uniform", calls: arc4Calls, helpers: []string{fillSource, arc4Fatal}, src: randomPre + `HIDDEN uint32_t arc4random_uniform(uint32_t bound) {
	if (bound < 2) return 0;
	uint32_t min = -bound % bound, v;
	do { if (abifloor_fill(&v, sizeof v) != 0) abifloor_fatal(); } while (v < min);
	return v % bound;
}
`},

	// FORTIFY's checks newer than the base set of 2.3.4 and 2.4: the
	// size test of glibc's own, then the plain function.
	{name: "__explicit_bzero_chk", calls: []string{"memset", "__chk_fail"}, src: "#include <stddef.h>\nextern void *memset(void *, int, size_t);\n" + chk +
		"HIDDEN void __explicit_bzero_chk(void *p, size_t n, size_t len) {\n\tif (len < n) __chk_fail();\n\tmemset(p, 0, n);\n\t__asm__ __volatile__(\"\" : : \"r\"(p) : \"memory\");\n}\n"},
	// FD_SET, FD_CLR and FD_ISSET with a descriptor outside fd_set.
	{name: "__fdelt_chk", calls: []string{"__chk_fail"}, src: chk +
		"HIDDEN long int __fdelt_chk(long int d) {\n\tif (d < 0 || d >= 1024) __chk_fail();\n\treturn d / (8 * (long int)sizeof(long int));\n}\n"},
	{name: "__poll_chk", calls: []string{"poll", "__chk_fail"}, src: "#include <stddef.h>\n#include <poll.h>\n" + chk +
		"HIDDEN int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t len) {\n\tif (len / sizeof *fds < n) __chk_fail();\n\treturn poll(fds, n, timeout);\n}\n"},
	{name: "__ppoll_chk", calls: []string{"ppoll", "__chk_fail"}, src: "#define _GNU_SOURCE 1\n#include <stddef.h>\n#include <signal.h>\n#include <time.h>\n#include <poll.h>\n" + chk +
		"HIDDEN int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *s, size_t len) {\n\tif (len / sizeof *fds < n) __chk_fail();\n\treturn ppoll(fds, n, t, s);\n}\n"},
	{name: "__readlinkat_chk", calls: []string{"readlinkat", "__chk_fail"}, src: "#include <unistd.h>\n" + chk +
		"HIDDEN ssize_t __readlinkat_chk(int fd, const char *p, char *buf, size_t n, size_t len) {\n\tif (n > len) __chk_fail();\n\treturn readlinkat(fd, p, buf, n);\n}\n"},
	{name: "__fread_chk", calls: []string{"fread", "__chk_fail"}, src: freadChk("__fread_chk", "fread")},
	{name: "__fread_unlocked_chk", calls: []string{"fread_unlocked", "__chk_fail"}, src: freadChk("__fread_unlocked_chk", "fread_unlocked")},
	// The printf checks' flag asks for %n only in read-only formats; the
	// polyfills print without that check.
	{name: "__asprintf_chk", calls: []string{"vasprintf"}, src: "#define _GNU_SOURCE 1\n#include <stdarg.h>\n#include <stdio.h>\n" +
		"HIDDEN int __asprintf_chk(char **r, int flag, const char *f, ...) {\n\tva_list ap;\n\t(void)flag;\n\tva_start(ap, f);\n\tint n = vasprintf(r, f, ap);\n\tva_end(ap);\n\treturn n;\n}\n"},
	{name: "__vasprintf_chk", calls: []string{"vasprintf"}, src: "#define _GNU_SOURCE 1\n#include <stdarg.h>\n#include <stdio.h>\n" +
		"HIDDEN int __vasprintf_chk(char **r, int flag, const char *f, va_list ap) {\n\t(void)flag;\n\treturn vasprintf(r, f, ap);\n}\n"},
	{name: "__dprintf_chk", calls: []string{"vdprintf"}, src: "#include <stdarg.h>\n#include <stdio.h>\n" +
		"HIDDEN int __dprintf_chk(int fd, int flag, const char *f, ...) {\n\tva_list ap;\n\t(void)flag;\n\tva_start(ap, f);\n\tint n = vdprintf(fd, f, ap);\n\tva_end(ap);\n\treturn n;\n}\n"},
	{name: "__vdprintf_chk", calls: []string{"vdprintf"}, src: "#include <stdarg.h>\n#include <stdio.h>\n" +
		"HIDDEN int __vdprintf_chk(int fd, int flag, const char *f, va_list ap) {\n\t(void)flag;\n\treturn vdprintf(fd, f, ap);\n}\n"},
	{name: "__obstack_printf_chk", calls: []string{"obstack_vprintf"}, src: "#define _GNU_SOURCE 1\n#include <stdarg.h>\n#include <stdio.h>\n" +
		"struct obstack;\nextern int obstack_vprintf(struct obstack *, const char *, va_list);\n" +
		"HIDDEN int __obstack_printf_chk(struct obstack *o, int flag, const char *f, ...) {\n\tva_list ap;\n\t(void)flag;\n\tva_start(ap, f);\n\tint n = obstack_vprintf(o, f, ap);\n\tva_end(ap);\n\treturn n;\n}\n"},
	{name: "__obstack_vprintf_chk", calls: []string{"obstack_vprintf"}, src: "#define _GNU_SOURCE 1\n#include <stdarg.h>\n#include <stdio.h>\n" +
		"struct obstack;\nextern int obstack_vprintf(struct obstack *, const char *, va_list);\n" +
		"HIDDEN int __obstack_vprintf_chk(struct obstack *o, int flag, const char *f, va_list ap) {\n\t(void)flag;\n\treturn obstack_vprintf(o, f, ap);\n}\n"},
}

// randomPre are the headers of the random polyfills: none declares
// arc4random (stdlib.h does, since 2.36) with another type; unistd.h
// declares getentropy as defined here.
const randomPre = "#define _GNU_SOURCE 1\n#include <errno.h>\n#include <fcntl.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n"

var (
	randomCalls = []string{"syscall", "open", "read", "close"}
	arc4Calls   = []string{"syscall", "open", "read", "close", "write", "abort"}
)

// fillSource fills a buffer with the kernel's random bytes: getrandom(2)
// (Linux 3.17), else /dev/urandom. Only syscall, open, read and close,
// which every release has.
const fillSource = `static int abifloor_fill(void *buf, size_t n) {
	unsigned char *p = buf;
	int fd = -1;
	while (n > 0) {
		long r = -1;
		if (fd < 0) {
#ifdef SYS_getrandom
			r = syscall(SYS_getrandom, p, n, 0);
#else
			errno = ENOSYS;
#endif
			if (r < 0 && errno == EINTR) continue;
			if (r < 0 && errno == ENOSYS) {
				fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
				if (fd < 0) return -1;
				continue;
			}
		} else {
			r = read(fd, p, n);
			if (r < 0 && errno == EINTR) continue;
		}
		if (r <= 0) { if (fd >= 0) close(fd); errno = EIO; return -1; }
		p += r;
		n -= (size_t)r;
	}
	if (fd >= 0) close(fd);
	return 0;
}
`

// arc4Fatal ends the process when no random bytes can be had, in glibc's
// words: arc4random has no way to fail.
const arc4Fatal = `extern void abort(void) __attribute__((noreturn));
static void abifloor_fatal(void) {
	static const char m[] = "Fatal glibc error: cannot get entropy for arc4random\n";
	ssize_t w = write(2, m, sizeof m - 1);
	(void)w;
	abort();
}
`

// freadChk is __fread_chk's source (and __fread_unlocked_chk's): the
// product of size and count, refusing an overflow, must fit the buffer.
func freadChk(name, fread string) string {
	return "#define _GNU_SOURCE 1\n#include <stdio.h>\n" + chk + fmt.Sprintf(
		"HIDDEN size_t %s(void *p, size_t len, size_t size, size_t n, FILE *f) {\n\tsize_t bytes;\n\tif (__builtin_mul_overflow(size, n, &bytes) || bytes > len) __chk_fail();\n\treturn %s(p, size, n, f);\n}\n", name, fread)
}

// Polyfills returns the polyfills of arch a (with symbols) for target,
// sorted by name: each name the newest release has and target lacks, whose
// calls target has.
func (a *Arch) Polyfills(target string) []Polyfill {
	at := a.Index(target)
	newest := a.Index(a.Newest)
	var out []Polyfill
	for _, d := range polyfillDefs {
		if w, ok := at.Lookup(d.name); ok && w.Soname != "" {
			continue // the target has it
		}
		if _, ok := newest.Lookup(d.name); !ok {
			continue // glibc never had it: no header emits it
		}
		if _, ok := statVer[a.Name]; d.xstat && !ok {
			continue
		}
		can := true
		for _, c := range d.calls {
			if w, ok := at.Lookup(c); !ok || w.Soname == "" {
				can = false
			}
		}
		if !can {
			continue
		}
		added, _ := at.Lookup(d.name)
		out = append(out, Polyfill{Name: d.name, Added: strings.TrimPrefix(added.Newer, "GLIBC_"), Calls: d.calls})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// findPolyfill is the table's polyfill of name.
func findPolyfill(name string) (polyfillDef, bool) {
	for _, d := range polyfillDefs {
		if d.name == name {
			return d, true
		}
	}
	return polyfillDef{}, false
}

// polyfillUnit is one C translation unit defining every polyfill of defs
// on arch. Each def's own source is written for a file of its own: its
// feature macro and includes come first in the unit, once each (the
// macro before any header, where it counts), then the static helpers
// they share, once each, then every def's code. The extern declarations
// in the code may repeat, as C allows.
func polyfillUnit(arch string, defs []polyfillDef) string {
	var defines, includes, helpers, code strings.Builder
	seen := map[string]bool{}
	once := func(b *strings.Builder, s string) {
		if !seen[s] {
			seen[s] = true
			b.WriteString(s)
		}
	}
	once(&defines, "#define HIDDEN __attribute__((visibility(\"hidden\")))\n")
	for _, d := range defs {
		if d.xstat {
			once(&defines, fmt.Sprintf("#define STAT_VER %d\n#define MKNOD_VER %d\n", statVer[arch], mknodVer[arch]))
		}
		for _, l := range strings.SplitAfter(d.src, "\n") {
			switch {
			case strings.HasPrefix(l, "#define _GNU_SOURCE"):
				once(&defines, l)
			case strings.HasPrefix(l, "#include "):
				once(&includes, l)
			default:
				code.WriteString(l)
			}
		}
		for _, h := range d.helpers {
			once(&helpers, h)
		}
	}
	return defines.String() + includes.String() + helpers.String() + code.String()
}

// compatMember is one member of the stubs' compat archive: a redirect's
// thunk (asm, its assembly in src) or a polyfill (its C is the table's,
// compiled with the others: polyfillObjects).
type compatMember struct {
	src string
	asm bool
	// from and to: a thunk's (asm), which writeThunk writes without src.
	from, to string
}

// compatMembers are the members of the stubs' compat archive for target:
// each name it defines.
func compatMembers(a *Arch, target string, redirects []Redirect) map[string]compatMember {
	members := map[string]compatMember{}
	for _, p := range a.Polyfills(target) {
		members[p.Name] = compatMember{}
	}
	for _, r := range redirects {
		if src, ok := thunk(a.Name, r.From, r.To); ok {
			members[r.From] = compatMember{src: src, asm: true, from: r.From, to: r.To}
		}
	}
	return members
}
