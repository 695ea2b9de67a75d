// Package ccwrap is the compiler wrapper behind abifloor cc and c++: it
// reads a gcc or clang command line as the driver does, and when the line
// links, it links against stub libraries of an older glibc release (built
// once into a cache shared by concurrent builds), with the C++ runtime the
// target can load, then proves the output twice: its floor per namespace,
// and the loader's view (every undefined symbol defined, with its version,
// by a library the output loads). A command line that does not link (a
// probe, -c, -E) runs untouched.
//
// A command line goes in (Wrapper.Run); the compiler's exit code, the
// explanations of a failed link and the Proof come out. Nothing here
// prints: the command does.
package ccwrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// Options say what to link for.
type Options struct {
	// Name is how messages call the command: "cc" or "c++".
	Name string
	// CXX links the C++ runtime the target can load (c++).
	CXX bool
	// Glibc is the release to link against (2.17), or Target a named
	// target whose GLIBC limit (and GLIBCXX, GCC, CXXABI limits) hold.
	// Exactly one is set.
	Glibc, Target string
	// Arch is the architecture (default: the compiler's).
	Arch string
	// CacheDir is the stub cache (default cache.DefaultDir).
	CacheDir string
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string
	// The compiler's standard streams.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Warn receives warnings (a refused cache root, a repaired entry).
	Warn func(string)
	// Verbose makes Run report what it decided (Result.Notes).
	Verbose bool
	// Dlopen names the libraries an executable loads itself (dlopen with
	// RTLD_GLOBAL): its lazily bound symbols that no library it loads at
	// start defines must be defined by one of them.
	Dlopen []string
	// CXXRuntime says how c++ links libstdc++ and libgcc: "shared" or
	// "static" forces one; "" decides (see cxxRuntime and linkCXX).
	CXXRuntime string
}

// ErrNoRelease is returned by New when neither a release nor a target was
// named.
var ErrNoRelease = errors.New("no glibc release or target named")

// ReleaseError is a release that is not one the database knows.
type ReleaseError struct {
	Release string
	Reason  string
}

func (e *ReleaseError) Error() string {
	return fmt.Sprintf("%q is not a glibc release: %s", e.Release, e.Reason)
}

// Wrapper links for one floor.
type Wrapper struct {
	o      Options
	limits floor.Limits
}

// New checks the options and resolves the target into the limits the
// proof checks.
func New(o Options) (*Wrapper, error) {
	if o.Name == "" {
		o.Name = "cc"
		if o.CXX {
			o.Name = "c++"
		}
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	w := &Wrapper{o: o}
	switch {
	case o.Glibc != "" && o.Target != "":
		return nil, errors.New("a glibc release and a target both given: use one")
	case o.Glibc != "":
		if err := checkRelease(o.Glibc); err != nil {
			return nil, err
		}
		w.limits = floor.Limits{"GLIBC": o.Glibc}
	case o.Target != "":
		t, err := targets.Lookup(o.Target)
		if err != nil {
			return nil, err
		}
		if t.Limits["GLIBC"] == "" {
			return nil, fmt.Errorf("target %s (%s) has no GLIBC limit: name a glibc-based target or a glibc release", t.Name, t.Kind)
		}
		w.limits = floor.Limits(t.Limits)
	default:
		return nil, ErrNoRelease
	}
	return w, nil
}

// checkRelease accepts a release written as numbers and dots (2.17,
// 2.41): it is written into wrapper scripts and cache keys, so nothing
// else may pass. Whether the database knows it is checked against the
// architecture at link time.
func checkRelease(r string) error {
	parts := strings.Split(r, ".")
	if len(parts) < 2 || len(parts) > 3 || len(r) > 16 {
		return &ReleaseError{Release: r, Reason: "want numbers and dots, e.g. 2.17"}
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return &ReleaseError{Release: r, Reason: "want numbers and dots, e.g. 2.17"}
		}
	}
	if _, _, ok := symver.Split("GLIBC_" + r); !ok {
		return &ReleaseError{Release: r, Reason: "want numbers and dots, e.g. 2.17"}
	}
	return nil
}

// Limits are what the proof checks: GLIBC, and the target's other
// namespaces.
func (w *Wrapper) Limits() floor.Limits { return w.limits }

// Result is what one compiler command line did.
type Result struct {
	// Code is the compiler's exit code (0: it succeeded).
	Code int
	// Explained are one-line explanations of a link that failed for lack
	// of a symbol ("gai_cancel is in libanl.so.1 in glibc 2.31: add -lanl").
	Explained []string
	// Proof is the proof of the linked output; nil when nothing was linked
	// or there was nothing to prove (-c, -r, -o /dev/null).
	Proof *Proof
	// Notes say what was decided that the command line did not spell out
	// (a static C++ runtime, -static), and with Options.Verbose what else
	// was decided.
	Notes []string
	// Hidden are the host libraries taken out of the link because they
	// need a newer glibc than the target.
	Hidden []Hidden
}

// Run runs the compiler command line argv (argv[0] is the compiler), with
// the stubs when it links, and proves what it linked. An error is
// abifloor's own failure (no compiler, an unreadable cache); a compiler
// that fails is Result.Code.
func (w *Wrapper) Run(ctx context.Context, argv []string) (Result, error) {
	if len(argv) == 0 {
		return Result{}, errors.New("no compiler command")
	}
	line := parseCCLine(argv[1:])
	if line.err != nil {
		return Result{}, fmt.Errorf("cannot tell which file this command links (%v): refusing to run a link it could not prove", line.err)
	}
	if !line.link {
		// A probe, a compile or a preprocess: nothing of glibc's is
		// involved, so the compiler runs untouched (and abifloor reads
		// neither the database nor the cache).
		code, err := w.runCompiler(ctx, w.o.Stderr, argv, nil)
		return Result{Code: code}, err
	}
	sl, err := w.stubsFor(ctx, argv[0])
	if err != nil {
		return Result{}, err
	}
	c, comp, so, a, stubs := sl.c, sl.comp, sl.so, sl.a, sl.dir
	var res Result
	if line.static {
		res.Notes = append(res.Notes, "-static links this host's libc.a, not the glibc "+so.Target+" stubs: the output needs no glibc to load, but its NSS, iconv and dlopen calls need this host's release at run time")
	}
	pre := []string{"-L" + stubs}
	if init := filepath.Join(stubs, glibc.InitObject); line.executable() && exists(init) {
		pre = append(pre, "-Wl,--wrap=main", init)
	}
	// With a target whose table gives its C++ runtime, c++ links the
	// shared runtime first: the target's own libstdc++ runs the program,
	// so only the versions the output needs of it count, not the host
	// copy's glibc floor. Static only when the output needs more.
	tryShared := false
	if w.o.CXX && !line.relocatable && !line.static {
		switch {
		case w.o.CXXRuntime == "shared" || w.o.CXXRuntime == "" && w.o.Target != "" && w.limits["GLIBCXX"] != "":
			tryShared = w.o.CXXRuntime == ""
			// The host's libstdc++ may need more of glibc than the
			// stubs have: its needs are the target's copy's to meet.
			pre = append(pre, "-Wl,--allow-shlib-undefined")
		default:
			rt, why, err := w.cxxRuntime(ctx, c, so, a, w.o.CXXRuntime == "static")
			if err != nil {
				return Result{}, err
			}
			if why != "" {
				res.Notes = append(res.Notes, "links libstdc++ and libgcc statically: "+why)
			}
			pre = append(pre, rt...)
		}
	}
	argv, hidden, err := w.hideHostLibs(ctx, c, comp, line, argv, stubs, so.Target)
	if err != nil {
		return Result{}, err
	}
	res.Hidden = hidden
	if w.o.Verbose {
		for _, h := range hidden {
			res.Notes = append(res.Notes, "not linked: "+h.Arg+": "+h.String())
		}
	}
	// The loader proof reads the stubs it binds against while the
	// compiler runs: with a core to spare, the proof of a warm link then
	// costs little more than the reading of the output.
	aud := newProofAuditor(line, stubs, w.o.Dlopen)
	// It starts once the compiler has: begun beside the compiler's start
	// (a thread of its own, the pages it touches), it made a warm link
	// 0.2 ms slower.
	var started func()
	if line.preloads() {
		preloaded := make(chan struct{})
		begun := false
		started = func() {
			begun = true
			go func() {
				defer close(preloaded)
				aud.Preload(preloadPaths(line, stubs, a)...)
			}()
		}
		defer func() {
			if begun {
				<-preloaded
			}
		}()
	}
	before, _ := os.Lstat(line.output)
	// The link's messages are held back (up to a bound) so that a symbol
	// missing from the target can be explained in one line instead of the
	// link editor's cascade.
	held := &heldWriter{w: w.o.Stderr, limit: 1 << 20}
	args := append([]string{argv[0]}, append(pre, argv[1:]...)...)
	code, err := w.runCompiler(ctx, held, args, started)
	if err != nil {
		held.Flush()
		return Result{}, err
	}
	if code != 0 {
		explained, all := explainUndefined(held.Bytes(), a.Name, so.Target)
		if !all || held.passed {
			held.Flush()
		}
		for _, h := range hidden {
			explained = append(explained, h.String())
		}
		res.Code, res.Explained = code, explained
		return res, nil
	}
	held.Flush()
	after, err := os.Lstat(line.output)
	if len(hidden) > 0 {
		// The link did without a library it named, which would have
		// failed had the library not been installed at all: fail it the
		// same way, so that a feature probe (zstd's -llzma) finds no
		// feature instead of a build that fails later for want of it. The
		// output goes, as the link editor removes a failed link's.
		if err == nil && after.Mode().IsRegular() && (before == nil || !sameFile(before, after)) {
			os.Remove(line.output)
		}
		for _, h := range hidden {
			res.Explained = append(res.Explained, "cannot link "+h.Arg+": "+h.String())
		}
		res.Code = 1
		return res, nil
	}
	switch {
	case err != nil:
		return Result{}, fmt.Errorf("the compiler succeeded but %s is not there: %v", line.output, err)
	case !after.Mode().IsRegular():
		return res, nil // -o /dev/null: a probe, nothing to prove
	case before != nil && sameFile(before, after):
		return Result{}, fmt.Errorf("%s was not rewritten by the link: refusing to prove a stale file", line.output)
	case line.relocatable:
		return res, nil
	}
	if tryShared || w.o.CXXRuntime == "shared" {
		// --allow-shlib-undefined let through what the link editor says
		// of other host libraries built for a newer glibc: say it here.
		if bad := hostLibsBeyond(ctx, line, stubs, so.Target); len(bad) > 0 {
			os.Remove(line.output)
			res.Code, res.Explained = 1, bad
			return res, nil
		}
	}
	if tryShared {
		why := w.beyondTargetCXX(ctx, line.output)
		if why == "" {
			if w.o.Verbose {
				res.Notes = append(res.Notes, "links libstdc++ and libgcc shared: "+w.o.Target+"'s runtime has every version the output needs")
			}
		} else {
			rt, _, err := w.cxxRuntime(ctx, c, so, a, true)
			if err != nil {
				return Result{}, err
			}
			pre = slices.DeleteFunc(pre, func(s string) bool { return s == "-Wl,--allow-shlib-undefined" })
			held := &heldWriter{w: w.o.Stderr, limit: 1 << 20}
			code, err := w.runCompiler(ctx, held, append([]string{argv[0]}, append(append(pre, rt...), argv[1:]...)...), nil)
			held.Flush()
			if err != nil {
				return Result{}, err
			}
			if code != 0 {
				res.Code = code
				return res, nil
			}
			res.Notes = append(res.Notes, "links libstdc++ and libgcc statically: "+why)
		}
	}
	p, err := w.prove(ctx, line, aud, a)
	res.Proof = p
	if err == nil && !p.OK() {
		// A refused output goes, as the link editor removes a failed
		// link's: left in place, the next make would call it up to date
		// and ship it.
		if rm := os.Remove(line.output); rm == nil || errors.Is(rm, os.ErrNotExist) {
			p.Removed = true
		}
	}
	return res, err
}

// stubSet is what a link is made with: the stubs of the target for the
// compiler, in the cache.
type stubSet struct {
	c    *cache.Cache
	comp *glibc.Compiler
	so   glibc.StubOptions
	a    *glibc.Arch
	dir  string
}

// stubsFor finds the compiler cc and the stubs of the target for it,
// building them when the cache has none: the fixed cost of every link.
func (w *Wrapper) stubsFor(ctx context.Context, cc string) (stubSet, error) {
	so := glibc.StubOptions{Arch: w.o.Arch, Target: w.limits["GLIBC"], CC: cc}
	comp, c, err := w.compilerWithCache(cc)
	if err != nil {
		return stubSet{}, err
	}
	if err := comp.AskTarget(ctx); err != nil {
		return stubSet{}, err
	}
	so.Compiler = comp
	if so.Arch == "" {
		so.Arch = so.Compiler.Arch
	}
	if err := so.Compiler.Targets(so.Arch); err != nil {
		return stubSet{}, err
	}
	a, err := glibc.ArchHeader(so.Arch)
	if err != nil {
		return stubSet{}, err
	}
	if so, err = so.ResolveWith(a); err != nil {
		return stubSet{}, err
	}
	w.limits["GLIBC"] = so.Target
	stubs, err := c.Get(ctx, so.Key(a), func(tmp, final string) error {
		so.FinalDir = final
		return glibc.WriteStubs(ctx, tmp, so)
	})
	if err != nil {
		return stubSet{}, err
	}
	return stubSet{c: c, comp: comp, so: so, a: a, dir: stubs}, nil
}

// compilerWithCache finds the compiler cc and opens the cache, which
// remembers the compiler's answers to queries (compilerAnswer).
func (w *Wrapper) compilerWithCache(cc string) (*glibc.Compiler, *cache.Cache, error) {
	comp, err := glibc.FindCompiler(cc)
	if err != nil {
		return nil, nil, err // before the cache is made
	}
	c, err := w.openCache()
	if err != nil {
		return nil, nil, err
	}
	comp.Answer = func(ctx context.Context, args ...string) ([]byte, error) {
		return compilerAnswer(ctx, c, comp, args...)
	}
	return comp, c, nil
}

// runCompiler runs the user's compiler with the caller's standard streams
// (stderr may be held back) and returns its exit code. It is not bounded
// in time: a build takes what it takes; an interrupt kills its process
// group.
func (w *Wrapper) runCompiler(ctx context.Context, stderr io.Writer, argv []string, started func()) (int, error) {
	if f, ok := w.o.Stdout.(interface{ Flush() error }); ok {
		f.Flush()
	}
	_, err := run.Cmd{Path: argv[0], Args: argv[1:], Stdin: w.o.Stdin, Stdout: w.o.Stdout, Stderr: stderr, Timeout: -1, MaxStderr: 1, Started: started}.Run(ctx)
	var e *run.Error
	if errors.As(err, &e) && e.ExitCode > 0 {
		return e.ExitCode, nil
	}
	if err != nil {
		return 0, err
	}
	return 0, nil
}

// openCache opens the stub cache, or a private one with a warning.
func (w *Wrapper) openCache() (*cache.Cache, error) {
	dir := w.o.CacheDir
	if dir == "" {
		var err error
		if dir, err = cache.DefaultDir(w.o.Getenv); err != nil {
			return nil, err
		}
	}
	c, warn, err := cache.OpenPrivate(dir)
	if err != nil {
		return nil, err
	}
	if warn != "" && w.o.Warn != nil {
		w.o.Warn(warn)
	}
	c.Warn = w.o.Warn
	return c, nil
}

// heldWriter keeps what is written, up to limit bytes; past that it passes
// everything through.
type heldWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    bytes.Buffer
	limit  int
	passed bool
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.passed {
		return h.w.Write(p)
	}
	if h.buf.Len()+len(p) > h.limit {
		h.passed = true
		h.w.Write(h.buf.Bytes())
		return h.w.Write(p)
	}
	return h.buf.Write(p)
}

func (h *heldWriter) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Bytes()
}

// Flush writes what was held.
func (h *heldWriter) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.passed {
		h.w.Write(h.buf.Bytes())
		h.buf.Reset()
	}
}

func sameFile(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino && sa.Mtim == sb.Mtim && sa.Ctim == sb.Ctim && sa.Size == sb.Size
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// compilerAnswerEnv are the variables that change what a gcc driver
// answers to a -print or -dump query.
var compilerAnswerEnv = []string{"GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH"}

// compilerAnswer runs the compiler with a query (-dumpmachine,
// -print-search-dirs) once per compiler binary and remembers its output in
// the cache, keyed by the compiler's identity (path, size and mtime, as
// ccache identifies a compiler), the query and the environment that
// changes the answer.
func compilerAnswer(ctx context.Context, c *cache.Cache, comp *glibc.Compiler, args ...string) ([]byte, error) {
	key := []string{"compiler answer", comp.ID}
	key = append(key, args...)
	for _, v := range compilerAnswerEnv {
		key = append(key, v+"="+os.Getenv(v))
	}
	dir, err := c.Get(ctx, strings.Join(key, "\x00"), func(tmp, _ string) error {
		out, err := run.Output(ctx, comp.Path, args...)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "answer"), out, 0o644)
	})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "answer"))
}
