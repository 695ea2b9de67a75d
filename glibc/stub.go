package glibc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/symver"
)

// StubFormat changes whenever WriteStubs writes different files for the same
// database and target; it is part of every cache key.
const StubFormat = "12"

// StubOptions say which stubs to write and how.
type StubOptions struct {
	Arch   string // x86_64 (default: the host's), aarch64, i386, s390x
	Target string // glibc release: 2.17
	// CC is the C compiler that assembles and links the stubs; default "cc"
	// for the host's architecture and TRIPLE-gcc for another.
	CC string
	// Compiler is CC probed (ProbeCompiler); WriteStubs probes it when nil.
	// Key needs it.
	Compiler *Compiler
	// FinalDir is where Dir will be once complete (the cache renames a
	// temporary directory into place); linker scripts name it. Default Dir.
	FinalDir string
}

// HostArch is the architecture name of the running program, as elfx names it.
func HostArch() string { return elfx.HostArch() }

// Resolve returns o with its defaults filled in, after checking the
// architecture and target against the embedded database, and the
// architecture, with its symbols when asked for. o itself is not changed.
func (o StubOptions) Resolve(symbols bool) (StubOptions, *Arch, error) {
	if o.Arch == "" {
		o.Arch = HostArch()
	}
	a, err := LoadArch(o.Arch, symbols)
	if err != nil {
		return o, nil, err
	}
	o, err = o.ResolveWith(a)
	return o, a, err
}

// ResolveWith is Resolve with the architecture (or its Header) already
// known: it reads nothing of the database.
func (o StubOptions) ResolveWith(a *Arch) (StubOptions, error) {
	o.Arch = a.Name
	var err error
	if o.Target, err = a.Check(o.Target); err != nil {
		return o, err
	}
	if o.CC == "" {
		o.CC = "cc"
		if a.Name != HostArch() {
			o.CC = a.Triple + "-gcc"
		}
	}
	return o, nil
}

// Key is what identifies the stubs of o (after Resolve, with Compiler set)
// in a cache: the stub format, the release, the database, and the compiler
// that builds them with its target triple.
func (o StubOptions) Key(a *Arch) string {
	k := []string{"glibc-stubs", StubFormat, a.Name, o.Target, a.Digest}
	if o.Compiler != nil {
		k = append(k, o.Compiler.Triple, o.Compiler.ID)
	}
	return strings.Join(k, "\x00")
}

// WriteStubs writes into dir (which must exist) one stub shared library per
// glibc library, named by its soname, plus the development names the link
// editor looks for: libc.so (a linker script, like the system's, that adds
// libc_nonshared.a and the loader), libm.so, libpthread.so, ... .
func WriteStubs(ctx context.Context, dir string, o StubOptions) error {
	return writeStubs(ctx, dir, o, false)
}

// writeStubs is WriteStubs; with tools set, the stub libraries, the
// thunks and the compat archive are made by the compiler, the assembler
// and ar as before StubFormat 11 (the tests compare the two).
func writeStubs(ctx context.Context, dir string, o StubOptions, tools bool) error {
	o, a, err := o.Resolve(true)
	if err != nil {
		return err
	}
	// Every path reaches the compiler, the assembler and ar absolute: a
	// directory named -stubs would otherwise read as an option.
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	comp := o.Compiler
	if comp == nil {
		if comp, err = ProbeCompiler(ctx, o.CC); err != nil {
			return fmt.Errorf("%w (needed to build stubs for %s)", err, a.Name)
		}
	}
	if err := comp.Targets(a.Name); err != nil {
		return err
	}
	cc := comp.Path
	final := o.FinalDir
	if final == "" {
		final = dir
	}
	if final, err = filepath.Abs(final); err != nil {
		return err
	}
	stubs := a.Select(o.Target)
	work := filepath.Join(dir, ".src")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	var redirects []Redirect // set by the compat archive's goroutine
	// Every compiler run is independent: run them all at once, a few per CPU.
	b := &builder{ctx: ctx, cc: cc, comp: comp, arch: a.Name, tools: tools, sem: make(chan struct{}, 2*runtime.NumCPU())}
	var (
		wg                 sync.WaitGroup
		compat, ns         string
		compatErr, initErr error
	)
	errs := make([]error, len(stubs))
	for i := range stubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = b.lib(work, dir, &stubs[i])
		}()
	}
	var gccErr error
	wg.Add(4)
	go func() {
		defer wg.Done()
		var gs StubLib
		var ok bool
		if gs, ok, gccErr = gccStub(ctx, comp); ok && gccErr == nil {
			if gccErr = b.lib(work, dir, &gs); gccErr == nil {
				// As the host's: libgcc_s.so is a script adding libgcc.a.
				gccErr = os.WriteFile(filepath.Join(dir, "libgcc_s.so"),
					[]byte(fmt.Sprintf("/* GNU ld script written by abifloor: libgcc_s's exports, no references. */\nGROUP ( %q -lgcc )\n", filepath.Join(final, gs.Soname))), 0o644)
			}
		}
	}()
	go func() {
		defer wg.Done()
		redirects = a.Redirects(o.Target)
		compat, compatErr = b.compat(a, o.Target, redirects, work, dir)
	}()
	go func() {
		defer wg.Done()
		if symver.Compare(o.Target, "2.34") < 0 {
			initErr = b.initObject(work, dir)
		}
	}()
	go func() { defer wg.Done(); ns = nonshared(ctx, comp) }()
	wg.Wait()
	if err := errors.Join(append(errs, compatErr, initErr, gccErr)...); err != nil {
		return err
	}
	script, err := libcScript(o.Target, a, final, compat, ns != "", asNeeded(stubs, a.Name, o.Target, redirects))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "libc.so"), []byte(script), 0o644); err != nil {
		return err
	}
	for _, s := range stubs {
		base, _, ok := strings.Cut(s.Soname, ".so.")
		if !ok || base == "libc" || !strings.HasPrefix(base, "lib") {
			continue
		}
		if err := os.Symlink(s.Soname, filepath.Join(dir, base+".so")); err != nil {
			return err
		}
	}
	return os.RemoveAll(work)
}

// libcScript is the libc.so linker script of the stubs in dir: the stub
// libc, the compat archive (when there is one), the compiler's own
// libc_nonshared.a found by the link editor's search (-lc_nonshared, so no
// path of one host is written into a shared entry), and the loader. Paths
// are quoted: a cache under a HOME with a space must link.
func libcScript(target string, a *Arch, dir, compat string, nonshared bool, needs []string) (string, error) {
	if strings.ContainsAny(dir, "\"\n") {
		return "", fmt.Errorf("glibc: %q: the link editor cannot name a path with a double quote or newline in a linker script", dir)
	}
	q := func(name string) string { return `"` + filepath.Join(dir, name) + `"` }
	group := []string{q("libc.so.6")}
	if compat != "" {
		group = append(group, q(compat))
	}
	if nonshared {
		group = append(group, "-lc_nonshared")
	}
	needed := []string{q(a.Loader)}
	for _, l := range needs {
		needed = append(needed, q(l))
	}
	return fmt.Sprintf("/* GNU ld script written by abifloor: glibc %s stubs for %s. */\nGROUP ( %s AS_NEEDED ( %s ) )\n",
		target, a.Name, strings.Join(group, " "), strings.Join(needed, " ")), nil
}

// mergedLibs are the libraries glibc 2.34 merged into libc: a program
// written for 2.34 or later calls pthread_create, dlopen or timer_create
// without -lpthread, -ldl or -lrt, and the host's build system may not add
// them. Before 2.34 the stub libc script names them AS_NEEDED, so a
// program that calls them gets them (and needs them) and one that does not
// stays as it was.
var mergedLibs = []string{"libpthread.so.0", "libdl.so.2", "librt.so.1"}

// asNeeded are the stub libraries the libc script names AS_NEEDED beside
// the loader: before 2.34 the merged ones, and the libraries that
// redirects jump into (libresolv for __res_search).
func asNeeded(stubs []StubLib, arch, target string, redirects []Redirect) []string {
	have := map[string]bool{}
	for _, l := range stubs {
		have[l.Soname] = true
	}
	seen := map[string]bool{"libc.so.6": true}
	var out []string
	add := func(so string) {
		if have[so] && !seen[so] {
			seen[so] = true
			out = append(out, so)
		}
	}
	if symver.Compare(target, "2.34") < 0 {
		for _, so := range mergedLibs {
			add(so)
		}
	}
	for _, r := range redirects {
		if _, ok := thunk(arch, r.From, r.To); ok {
			add(r.Soname)
		}
	}
	return out
}

// builder runs the C compiler, at most cap(sem) at a time, and writes
// what needs no compiler (the stub libraries, the thunks, the archive)
// itself unless tools is set.
type builder struct {
	ctx   context.Context
	cc    string
	comp  *Compiler
	arch  string
	tools bool
	sem   chan struct{}
	// polyfillsShared: the compat archive's polyfills were cut out of
	// one compiled unit (polyfillObjects), not compiled one by one.
	polyfillsShared bool
}

func (b *builder) run(tool string, args ...string) error {
	return b.runIn("", tool, args...)
}

// runIn runs tool in the working directory dir ("": abifloor's own).
func (b *builder) runIn(dir, tool string, args ...string) error {
	b.sem <- struct{}{}
	defer func() { <-b.sem }()
	return runCCIn(b.ctx, dir, tool, args...)
}

// batches splits srcs into at most n batches of nearly equal size, in
// order.
func batches(srcs []string, n int) [][]string {
	if len(srcs) == 0 {
		return nil
	}
	n = max(1, min(n, len(srcs)))
	out := make([][]string, 0, n)
	for i := range n {
		out = append(out, srcs[i*len(srcs)/n:(i+1)*len(srcs)/n])
	}
	return out
}

// lib writes the stub library of s into dir.
func (b *builder) lib(work, dir string, s *StubLib) error {
	if b.tools {
		return b.libByTools(work, dir, s)
	}
	data, err := writeStubLib(b.arch, s)
	if err != nil {
		return err
	}
	// Executable, as the link editor writes a shared library.
	return os.WriteFile(filepath.Join(dir, s.Soname), data, 0o755)
}

// libByTools writes the assembly and version script of one stub and
// links it with the compiler.
func (b *builder) libByTools(work, dir string, s *StubLib) error {
	var asm, vs bytes.Buffer
	byVersion := map[string][]string{}
	placed := map[string]string{} // alias → label of the storage
	for i, sym := range s.Syms {
		label := fmt.Sprintf("__abifloor_%d", i)
		size := sym.Size
		// Data symbols of one Alias group share one storage: the first
		// places it, the others name it.
		shared := sym.Kind != Func && sym.Alias != ""
		if at, ok := placed[string(sym.Kind)+sym.Alias]; shared && ok {
			fmt.Fprintf(&asm, "\t.globl %s\n\t.set %s, %s\n\t.type %s, %s\n\t.size %s, %d\n",
				label, label, at, label, kindType(sym.Kind), label, size)
		} else {
			if shared {
				placed[string(sym.Kind)+sym.Alias] = label
			}
			switch sym.Kind {
			case Func:
				fmt.Fprintf(&asm, "\t.text\n\t.globl %s\n\t.type %s, %%function\n%s:\n\t.zero 1\n", label, label, label)
			case Object:
				fmt.Fprintf(&asm, "\t.data\n\t.balign 16\n\t.globl %s\n\t.type %s, %%object\n\t.size %s, %d\n%s:\n\t.zero %d\n",
					label, label, label, size, label, max(size, 1))
			case TLS:
				fmt.Fprintf(&asm, "\t.section .tbss,\"awT\",%%nobits\n\t.balign 16\n\t.globl %s\n\t.type %s, %%tls_object\n\t.size %s, %d\n%s:\n\t.zero %d\n",
					label, label, label, size, label, max(size, 1))
			}
		}
		if sym.Weak {
			fmt.Fprintf(&asm, "\t.weak %s\n", label)
		}
		at := "@"
		if sym.Default {
			at = "@@"
		}
		fmt.Fprintf(&asm, "\t.symver %s, %s%s%s, remove\n", label, sym.Name, at, sym.Version)
		byVersion[sym.Version] = append(byVersion[sym.Version], sym.Name)
	}
	versions := sortedVersions(s.Versions)
	for i, v := range versions {
		fmt.Fprintf(&vs, "%s {\n", v)
		if names := byVersion[v]; len(names) > 0 {
			vs.WriteString("  global:\n")
			for _, n := range names {
				fmt.Fprintf(&vs, "    %s;\n", n)
			}
		}
		if i == 0 {
			vs.WriteString("  local: *;\n")
		}
		vs.WriteString("};\n")
	}
	src := filepath.Join(work, s.Soname+".s")
	mapf := filepath.Join(work, s.Soname+".map")
	if err := os.WriteFile(src, asm.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(mapf, vs.Bytes(), 0o644); err != nil {
		return err
	}
	args := []string{"-shared", "-nostdlib", "-o", filepath.Join(dir, s.Soname), "-Wl,-soname," + s.Soname}
	if len(versions) > 0 {
		args = append(args, "-Wl,--version-script="+mapf)
	}
	args = append(args, src)
	return b.run(b.cc, args...)
}

func kindType(k Kind) string {
	if k == TLS {
		return "%tls_object"
	}
	return "%object"
}

// compat builds an archive with what the host's headers emit and an old
// target lacks: the names it has under another one (Redirects: a thunk
// each) and those written from what it has (Polyfills: the stat family
// before 2.33, FORTIFY's newer checks, __libc_single_threaded). One
// member per name, so a program pulls in (and needs the versions of) only
// the ones it uses; each is hidden, so nothing leaks into the dynamic
// symbol table. They are compiled without FORTIFY or the stack protector
// (a distribution's compiler may default to them), so a check never calls
// itself. It returns the archive's name, or "" when the target needs none.
func (b *builder) compat(a *Arch, target string, redirects []Redirect, work, dir string) (string, error) {
	members := compatMembers(a, target, redirects)
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names)
	// A thunk is written here (with tools, assembled from its source);
	// the polyfills are C, compiled together (polyfillObjects).
	thunks := map[string][]byte{} // object path → the thunk written here
	var ssrc []string
	var defs []polyfillDef
	objs := make([]string, len(names)) // in the order of the names
	for i, name := range names {
		m := members[name]
		obj := compatFile(work, name, ".o")
		objs[i] = obj
		switch {
		case m.asm && !b.tools:
			data, err := writeThunk(a.Name, m.from, m.to)
			if err != nil {
				return "", err
			}
			thunks[obj] = data
		case m.asm:
			src := compatFile(work, name, ".s")
			if err := os.WriteFile(src, []byte(m.src), 0o644); err != nil {
				return "", err
			}
			ssrc = append(ssrc, src)
		default:
			d, ok := findPolyfill(name)
			if !ok {
				return "", fmt.Errorf("glibc: no polyfill named %s in the table", name)
			}
			defs = append(defs, d)
		}
	}
	var cErr error
	cDone := make(chan struct{})
	go func() {
		defer close(cDone)
		_, b.polyfillsShared, cErr = b.polyfillObjects(a.Name, work, defs)
	}()
	asmErr := b.compileBatches(work, []string{"-c"}, "assembler", ssrc)
	<-cDone
	if err := errors.Join(cErr, asmErr); err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", nil
	}
	const lib = "libabifloor_compat.a"
	if !b.tools {
		// Members by base name, in the order given, as ar stores them.
		ms := make([]arMember, len(objs))
		for i, o := range objs {
			data, ok := thunks[o]
			if !ok {
				var err error
				if data, err = os.ReadFile(o); err != nil {
					return "", err
				}
			}
			ms[i] = arMember{name: filepath.Base(o), data: data}
		}
		data, err := writeArchive(ms)
		if err != nil {
			return "", err
		}
		return lib, os.WriteFile(filepath.Join(dir, lib), data, 0o644)
	}
	ar, err := b.tool("ar")
	if err != nil {
		return "", err
	}
	if err := b.run(ar, append([]string{"rcs", filepath.Join(dir, lib)}, objs...)...); err != nil {
		return "", err
	}
	return lib, nil
}

// InitObject is the object, in a stub directory for a target older than
// 2.34, that an executable links with -Wl,--wrap=main (abifloor cc does)
// so that its constructors run on that target.
//
// Why: since glibc 2.34, crt1.o passes no initialiser to __libc_start_main,
// because the new libc runs the executable's DT_INIT and init_array itself.
// An older libc runs only the initialiser it is given, so a program linked
// with the host's crt1.o would start without its constructors. The wrapper
// runs them before main when, and only when, the running glibc is older
// than 2.34.
const InitObject = "abifloor-init.o"

const initSource = `extern int __real_main(int, char **, char **);
extern const char *gnu_get_libc_version(void);
extern void _init(void) __attribute__((weak));
typedef void (*initfn)(int, char **, char **);
extern initfn __init_array_start[] __attribute__((visibility("hidden")));
extern initfn __init_array_end[] __attribute__((visibility("hidden")));

static int before_2_34(void) {
	const char *v = gnu_get_libc_version();
	unsigned major = 0, minor = 0;
	while (*v >= '0' && *v <= '9') major = major * 10 + (unsigned)(*v++ - '0');
	if (*v == '.') v++;
	while (*v >= '0' && *v <= '9') minor = minor * 10 + (unsigned)(*v++ - '0');
	return major < 2 || (major == 2 && minor < 34);
}

int __wrap_main(int argc, char **argv, char **envp) {
	if (before_2_34()) {
		if (_init) _init();
		for (initfn *f = __init_array_start; f < __init_array_end; f++) (*f)(argc, argv, envp);
	}
	return __real_main(argc, argv, envp);
}
`

func (b *builder) initObject(work, dir string) error {
	c := filepath.Join(work, "init.c")
	if err := os.WriteFile(c, []byte(initSource), 0o644); err != nil {
		return err
	}
	return b.run(b.cc, "-x", "c", "-c", "-O2", "-fPIE", "-o", filepath.Join(dir, InitObject), c)
}

// nonshared returns the compiler's libc_nonshared.a, or "" when it has none.
func nonshared(ctx context.Context, comp *Compiler) string {
	out, err := comp.Query(ctx, "-print-file-name=libc_nonshared.a")
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return filepath.Clean(p)
}

func runCC(ctx context.Context, cc string, args ...string) error {
	return runCCIn(ctx, "", cc, args...)
}

func runCCIn(ctx context.Context, dir, cc string, args ...string) error {
	// The compiler's diagnostics are on stderr; its stdout (nothing, for
	// -c and -o) is kept with them.
	res, err := run.Cmd{Path: cc, Args: args, Dir: dir, Timeout: 5 * time.Minute}.Run(ctx)
	if err != nil {
		var e *run.Error
		msg := ""
		if errors.As(err, &e) {
			err, msg = e.Err, strings.TrimSpace(string(res.Stdout)+"\n"+e.Stderr)
		}
		return fmt.Errorf("glibc: %s %s: %v\n%s", cc, strings.Join(args, " "), err, msg)
	}
	return nil
}
