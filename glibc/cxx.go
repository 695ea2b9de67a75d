package glibc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"

	"path/filepath"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/internal/run"
)

// A C++ program for an old glibc links the host's C++ runtime statically
// (libstdc++.a, libgcc_eh.a): the host's libstdc++.so.6 and libgcc_s.so.1
// need the host's glibc. The static runtime was compiled against the
// host's glibc too, so it references a few functions the target lacks.
// WriteCXXPolyfills finds them (nm -u over the archives) and builds one
// object that defines each, hidden, from what the target has. A polyfill
// is written only for a symbol the target lacks; the set is not fixed, it
// is what the archives ask for. docs/stubs.md says what each one does and
// where it falls short.

// CXXPolyfillObject is the object WriteCXXPolyfills writes.
const CXXPolyfillObject = "abifloor-cxx.o"

// polyfill is the C source that supplies one glibc symbol.
type polyfill struct {
	src string
}

var polyfills = map[string]polyfill{
	// libgcc's unwinder finds the unwind tables of a PC with it. The same
	// answer from dl_iterate_phdr: the object whose PT_LOAD holds pc, and
	// its PT_GNU_EH_FRAME.
	"_dl_find_object": {src: `#include <link.h>
#include <stdint.h>
#include <string.h>
struct abifloor_find { uintptr_t pc; struct dl_find_object *r; int found; };
static int abifloor_find_cb(struct dl_phdr_info *info, size_t size, void *data) {
	struct abifloor_find *f = data;
	const ElfW(Phdr) *eh = 0;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int in = 0;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type == PT_LOAD) {
			uintptr_t s = info->dlpi_addr + p->p_vaddr, e = s + p->p_memsz;
			if (f->pc >= s && f->pc < e) in = 1;
			if (s < lo) lo = s;
			if (e > hi) hi = e;
		} else if (p->p_type == PT_GNU_EH_FRAME) {
			eh = p;
		}
	}
	if (!in) return 0;
	memset(f->r, 0, sizeof *f->r);
	f->r->dlfo_map_start = (void *)lo;
	f->r->dlfo_map_end = (void *)hi;
	f->r->dlfo_eh_frame = eh ? (void *)(info->dlpi_addr + eh->p_vaddr) : 0;
	f->found = 1;
	return 1;
}
HIDDEN int _dl_find_object(void *pc, struct dl_find_object *r) {
	struct abifloor_find f = { (uintptr_t)pc, r, 0 };
	dl_iterate_phdr(abifloor_find_cb, &f);
	return f.found ? 0 : -1;
}
`},
	// libstdc++ registers thread_local destructors with it. Without it
	// (before 2.18) they run at thread exit through a pthread key when
	// libpthread is loaded, else at exit. Unlike glibc's, it does not
	// keep the registering shared library loaded until they ran.
	"__cxa_thread_atexit_impl": {src: `#include <pthread.h>
struct abifloor_dtor { void (*f)(void *); void *obj; struct abifloor_dtor *next; };
static __thread struct abifloor_dtor *abifloor_dtors;
extern int pthread_key_create(pthread_key_t *, void (*)(void *)) __attribute__((weak));
extern int pthread_setspecific(pthread_key_t, const void *) __attribute__((weak));
static pthread_key_t abifloor_key;
static int abifloor_key_state; /* 0 none, 1 creating, 2 made, 3 failed */
static void abifloor_run_dtors(void *unused) {
	(void)unused;
	while (abifloor_dtors) {
		struct abifloor_dtor *d = abifloor_dtors;
		abifloor_dtors = d->next;
		d->f(d->obj);
		free(d);
	}
}
static void abifloor_run_dtors_exit(void) { abifloor_run_dtors(0); }
HIDDEN int __cxa_thread_atexit_impl(void (*f)(void *), void *obj, void *dso) {
	(void)dso;
	struct abifloor_dtor *d = malloc(sizeof *d);
	if (!d) return -1;
	int st = __atomic_load_n(&abifloor_key_state, __ATOMIC_ACQUIRE);
	if (st == 0) {
		int zero = 0;
		if (__atomic_compare_exchange_n(&abifloor_key_state, &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			int ok = pthread_key_create && pthread_key_create(&abifloor_key, abifloor_run_dtors) == 0;
			atexit(abifloor_run_dtors_exit);
			__atomic_store_n(&abifloor_key_state, ok ? 2 : 3, __ATOMIC_RELEASE);
		}
		while ((st = __atomic_load_n(&abifloor_key_state, __ATOMIC_ACQUIRE)) == 1) {}
	}
	if (st == 2 && pthread_setspecific) pthread_setspecific(abifloor_key, (void *)1);
	d->f = f; d->obj = obj; d->next = abifloor_dtors;
	abifloor_dtors = d;
	return 0;
}
`},
}

// WriteCXXPolyfills writes into dir the polyfill object for the static C++
// runtime archives (libstdc++.a, libgcc_eh.a, ...) linked for o.Target. It
// returns the glibc symbols it supplies ("" path when none are needed), and
// the link options of the target's libraries other than libc that the
// archives need (-lpthread before 2.34: the runtime was built when
// pthread_once was in libc). A symbol the archives need that the target
// lacks and abifloor cannot supply is an error naming it.
func WriteCXXPolyfills(ctx context.Context, dir string, o StubOptions, archives []string) (obj string, supplied, libs []string, err error) {
	o, a, err := o.Resolve(true)
	if err != nil {
		return "", nil, nil, err
	}
	cc := o.CC
	if o.Compiler != nil {
		cc = o.Compiler.Path
	}
	comp := o.Compiler
	if comp == nil {
		if comp, err = FindCompiler(cc); err != nil {
			return "", nil, nil, err
		}
	}
	nm := "nm"
	if out, err := comp.Query(ctx, "-print-prog-name=nm"); err == nil && strings.TrimSpace(string(out)) != "" {
		nm = strings.TrimSpace(string(out))
	}
	nmPath, err := run.LookPath(nm)
	if err != nil {
		return "", nil, nil, fmt.Errorf("glibc: nm (from %s -print-prog-name=nm) not found: %w", cc, err)
	}
	// One nm run reads every archive: its member headers are lines of one
	// field, which the loop skips. (With no archive, nm would read a.out.)
	var out []byte
	if len(archives) > 0 {
		if out, err = run.Output(ctx, nmPath, append([]string{"-u", "-P"}, archives...)...); err != nil {
			return "", nil, nil, fmt.Errorf("glibc: %s -u -P %s: %w", nm, strings.Join(archives, " "), err)
		}
	}
	undef := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[1] == "U" {
			name, _, _ := strings.Cut(f[0], "@")
			undef[name] = true
		}
	}
	covered := compatCovered(a, o.Target)
	var missing []string
	flags := map[string]bool{}
	ix := a.Index(o.Target)
	for name := range undef {
		w, ok := ix.Lookup(name)
		if ok && w.Soname != "" {
			if f := LinkFlag(w.Soname); f != "" {
				flags[f] = true
			}
		}
		if !ok || w.Newer == "" || covered[name] {
			continue
		}
		if _, ok := polyfills[name]; !ok {
			missing = append(missing, fmt.Sprintf("%s (%s)", name, w.Newer))
			continue
		}
		supplied = append(supplied, name)
	}
	for f := range flags {
		libs = append(libs, f)
	}
	sort.Strings(libs)
	sort.Strings(missing)
	sort.Strings(supplied)
	if len(missing) > 0 {
		return "", nil, nil, fmt.Errorf("glibc: the static C++ runtime (%s) needs %s, which glibc %s lacks and abifloor cannot supply",
			strings.Join(archives, ", "), strings.Join(missing, ", "), o.Target)
	}
	if len(supplied) == 0 {
		return "", nil, libs, nil
	}
	var src strings.Builder
	src.WriteString("#define _GNU_SOURCE 1\n#include <dlfcn.h>\n#include <errno.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n")
	src.WriteString("#define HIDDEN __attribute__((visibility(\"hidden\")))\n")
	for _, n := range supplied {
		src.WriteString(polyfills[n].src)
	}
	c := filepath.Join(dir, "abifloor-cxx.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		return "", nil, nil, err
	}
	obj = filepath.Join(dir, CXXPolyfillObject)
	if err := runCC(ctx, cc, "-x", "c", "-std=gnu11", "-c", "-O2", "-fPIC", "-o", obj, c); err != nil {
		return "", nil, nil, err
	}
	return obj, supplied, libs, nil
}

// compatCovered are the symbols the stubs' compat archive defines for
// target: a polyfill of the static C++ runtime is not built twice.
func compatCovered(a *Arch, target string) map[string]bool {
	m := map[string]bool{}
	for n := range compatMembers(a, target, a.Redirects(target)) {
		m[n] = true
	}
	return m
}
