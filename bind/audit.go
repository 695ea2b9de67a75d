package bind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/errjson"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/walk"
)

// Options configure an Auditor.
type Options struct {
	// Sysroot is an image root: the cache, absolute paths and symbolic
	// links are all resolved inside it.
	Sysroot string
	// Host is a program that loads the libraries audited (dlopen): node
	// for an N-API addon, python3 for an extension module. Their
	// undefined symbols and libraries are resolved against its load
	// first, as when it loads them, so what it provides is not missing.
	Host string
	// CrossPrefix, without Sysroot or Image, is a root of another
	// architecture's libraries on this machine (Debian's cross root
	// /usr/aarch64-linux-gnu): every absolute path the load looks up is
	// tried under it first, then on this machine, as qemu-user's -L
	// prefix makes a foreign program's loader see its files.
	CrossPrefix string
	// Image, when set, is the file system audited instead of this
	// machine's: paths, links, libraries and the cache are the image's
	// (Sysroot is then ignored).
	Image *Image
	// LibraryPath is LD_LIBRARY_PATH, already split at colons.
	LibraryPath []string
	// CacheFile overrides <sysroot>/etc/ld.so.cache.
	CacheFile string
	// Dlopen names the libraries the program loads itself (dlopen with
	// RTLD_GLOBAL): paths, or names searched as the executable would.
	Dlopen  []string
	Follow  bool // follow symbolic links inside directories
	Workers int  // files audited in parallel (default 2×GOMAXPROCS)
	// Progress, when set, is called now and then with the number of files
	// looked at so far (from one goroutine at a time).
	Progress func(files int64)
	// Demangle, when set, rewrites the symbol names of the reports (and
	// of the warnings made from them), as demangle.Filter does.
	Demangle func(string) string
	// Tree keeps, in FileReport.Deps, which object needed which library
	// and where each was found: the tree of a file's load.
	Tree bool
	// BindNow audits as if every file were linked with -z now (or run
	// with LD_BIND_NOW=1): lazily bound symbols are bound at start, so
	// one no loaded library provides kills the program before main.
	BindNow bool
}

// Auditor audits binaries against one image. Parsed libraries are shared by
// every binary it audits; it is safe for concurrent use.
type Auditor struct {
	fsys      fileSystem
	img       *Image
	sysroot   string
	cross     string // Options.CrossPrefix
	hostPath  string // Options.Host
	hostOnce  sync.Once
	hostSc    *scope // the host program's load (Options.Host)
	hostErr   error
	libPath   []string
	cachePath string
	dlopen    []string
	follow    bool
	workers   int
	multiarch bool
	progress  func(int64)
	demangle  func(string) string
	tree      bool
	bindNow   bool

	objs      objects
	cacheOnce sync.Once
	ldcache   *ldCache
	cacheErr  error

	selfMu sync.Mutex
	self   map[*object]*selfEntry

	dirMu sync.Mutex
	dirs  map[string]*dirEntry // search directories, by name inside the image

	findMu      sync.Mutex
	found       map[findKey]*findEntry // every search made, by what it depends on
	lists       map[string]*searchList // search lists, by their directories' ids
	empty       *searchList
	searches    atomic.Int64 // searches made (not answered from found), for tests
	scopeHint   atomic.Int64 // the most objects a scope held so far
	libPathOnce sync.Once
	libPathList []*dirEntry
}

// New makes an Auditor. It reads nothing until asked.
func New(opt Options) *Auditor {
	a := &Auditor{sysroot: opt.Sysroot, cross: opt.CrossPrefix, hostPath: opt.Host, libPath: opt.LibraryPath, dlopen: opt.Dlopen, follow: opt.Follow, workers: opt.Workers, progress: opt.Progress, demangle: opt.Demangle, tree: opt.Tree, bindNow: opt.BindNow,
		fsys: hostFS{}, objs: objects{byPath: map[string]*pathEntry{}, byKey: map[fileKey]*object{}}, self: map[*object]*selfEntry{}, dirs: map[string]*dirEntry{}}
	if opt.CacheFile != "" {
		a.cachePath = opt.CacheFile
	}
	if a.workers <= 0 {
		a.workers = 2 * runtime.GOMAXPROCS(0)
	}
	if opt.Image != nil {
		a.img, a.fsys, a.sysroot = opt.Image, opt.Image, "/"
	}
	a.found, a.lists = map[findKey]*findEntry{}, map[string]*searchList{}
	a.empty = a.intern(nil)
	a.setMultiarch()
	return a
}

// setMultiarch looks at the image's library directories.
func (a *Auditor) setMultiarch() {
	// Debian-style images keep libraries in multiarch directories; the
	// default search path and $LIB follow the image, not this machine. A
	// root without merged /usr (Debian 11 and older, a root unpacked from
	// libc6 alone) may have only /lib/<triplet>.
	for _, d := range multiarchDirs {
		if h, err := a.host(d); err == nil {
			if mode, _, err := a.fsys.stat(h); err == nil && mode.IsDir() {
				a.multiarch = true
				break
			}
		}
	}
}

// multiarchDirs are the directories that make a root Debian-style.
var multiarchDirs = []string{
	"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/i386-linux-gnu", "/lib/i386-linux-gnu",
	"/usr/lib/arm-linux-gnueabihf", "/lib/arm-linux-gnueabihf",
	"/usr/lib/powerpc64le-linux-gnu", "/lib/powerpc64le-linux-gnu",
	"/usr/lib/s390x-linux-gnu", "/lib/s390x-linux-gnu",
	"/usr/lib/riscv64-linux-gnu", "/lib/riscv64-linux-gnu",
}

// CacheError is the error reading the image's ld.so.cache, if any.
func (a *Auditor) CacheError() error { a.cache(); return a.cacheErr }

// Preload reads now what an audit begun later would read itself: the
// image's ld.so.cache, the LibraryPath directories and the libraries at
// paths (inside the image), so that a caller who knows early what is
// coming reads it while it waits for something else (abifloor cc parses
// the stub libraries while the compiler runs). It changes when a file is
// read, never what an audit reports: a file that cannot be read is an
// error for the audit that needs it, as if that audit had read it; so
// paths should be files that nothing rewrites meanwhile.
func (a *Auditor) Preload(paths ...string) {
	a.cache()
	a.libPathDirs()
	for _, p := range paths {
		a.open(p, nil)
	}
}

// Result is a whole audit. Field names are part of the JSON contract
// (docs/bind-json.md).
type Result struct {
	Files []FileReport `json:"files"`
	// Warnings are the files that start but die at the first call to a
	// lazily bound symbol no loaded library provides.
	Warnings []Warning `json:"warnings"`
	// Incomplete: the audit was cancelled before every file found was
	// audited; Files then holds only the files audited to the end, and
	// nothing may be concluded of the others.
	Incomplete bool `json:"incomplete"`
	// Found is how many files (ELF files, and paths that could not be
	// read) the audit took up; with Incomplete, Files has fewer.
	Found int `json:"found"`
}

// Warning is a file with lazily bound symbols that no loaded library
// provides: it starts, then dies at the first call to one of them.
type Warning struct {
	Path    string   `json:"path"`
	Message string   `json:"message"`
	Symbols []string `json:"symbols"`
}

// Fails reports whether the audit found a file that does not load: one
// that dies at start, crashes at its first call through a PLT entry of
// type NONE, or lacks a symbol its --dlopen libraries should provide, or,
// when strict, one with a Warning.
func (r *Result) Fails(strict bool) bool {
	for _, fr := range r.Files {
		if fr.DiesAtStart || len(fr.DlopenMissing) > 0 || fr.PLTNone > 0 || len(fr.RelrIgnored) > 0 {
			return true
		}
	}
	return strict && len(r.Warnings) > 0
}

// Errors is the number of files that could not be audited.
func (r *Result) Errors() int {
	n := 0
	for _, fr := range r.Files {
		if fr.Error != nil {
			n++
		}
	}
	return n
}

// SymbolName is u as name@version (name alone when unversioned).
func (u Unresolved) SymbolName() string {
	if u.Version != "" {
		return u.Name + "@" + u.Version
	}
	return u.Name
}

// warnings lists, per file, the lazily bound symbols nothing loaded
// provides. A plugin's are its host's to provide; with --dlopen
// libraries, those they lack are failures already (DlopenMissing); and a
// file that dies at start never reaches a call.
func (a *Auditor) warnings(res *Result) []Warning {
	out := []Warning{}
	if len(a.dlopen) > 0 {
		return out
	}
	for _, fr := range res.Files {
		if fr.Plugin || fr.DiesAtStart || fr.Error != nil {
			continue
		}
		var syms []string
		for _, u := range fr.Unresolved {
			if u.Binding == "lazy" {
				syms = append(syms, u.SymbolName())
			}
		}
		if len(syms) == 0 {
			continue
		}
		n := "1 symbol"
		if len(syms) > 1 {
			n = fmt.Sprintf("%d symbols", len(syms))
		}
		out = append(out, Warning{Path: fr.Path, Symbols: syms,
			Message: fmt.Sprintf("%s lazily bound that no loaded library provides: the program dies at the first call to %s", n, strings.Join(syms[:min(len(syms), 5)], ", "))})
	}
	return out
}

// Dep is one DT_NEEDED entry of an object of a file's load: the name,
// and where it was found inside the image ("" when nowhere).
type Dep struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// ObjectDeps are the DT_NEEDED entries of one object of a load, in its
// order. Object is "" for the audited file itself.
type ObjectDeps struct {
	Object string `json:"object"`
	Needed []Dep  `json:"needed"`
}

// FileReport is the verdict on one binary.
type FileReport struct {
	Path string `json:"path"`
	// Kind is what the file is, in elfx's words. A shared library is
	// audited as if loaded on its own (a plugin's host may provide what it
	// lacks); a static program loads nothing; a separate debug file
	// (debug-info) is reported and not audited.
	Kind   elfx.Kind `json:"kind,omitempty"`
	Arch   string    `json:"arch,omitempty"`
	Interp string    `json:"interp,omitempty"`
	// BindNow: every relocation is resolved before main (DT_BIND_NOW,
	// DF_BIND_NOW, DF_1_NOW).
	BindNow bool `json:"bind_now"`
	// Relro is none, partial (PT_GNU_RELRO) or full (and BIND_NOW).
	Relro string `json:"relro"`
	// Go: linked by the Go linker; GoBindNow: BindNow, and the Go linker
	// asked for it (-bindnow, a plugin, a program that may load plugins),
	// not the user through -extldflags.
	Go        bool `json:"go,omitempty"`
	GoBindNow bool `json:"go_bind_now,omitempty"`
	// Plugin: a library without DT_SONAME, which nothing links against;
	// a program loads it with dlopen and provides the symbols it lacks
	// (Perl and Python modules). Its unresolved symbols are then the
	// host's to provide, not a failure: HostSymbols counts the eager ones.
	Plugin      bool `json:"plugin,omitempty"`
	HostSymbols int  `json:"host_symbols,omitempty"`
	DiesAtStart bool `json:"dies_at_start"`
	// IfBindNow, with Options.BindNow: the file starts as linked, and
	// dies at start only when every symbol is bound at start (-z now,
	// LD_BIND_NOW=1).
	IfBindNow bool   `json:"if_bind_now,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Message is the whole line ld.so would print.
	Message          string       `json:"message,omitempty"`
	Unresolved       []Unresolved `json:"unresolved"`
	MissingLibraries []string     `json:"missing_libraries"`
	// Libraries is the load order after the file itself.
	Libraries []string `json:"libraries"`
	// DlopenMissing are lazily bound symbols none of the --dlopen
	// libraries provides: the program would fail at the first call.
	DlopenMissing []Unresolved `json:"dlopen_missing"`
	// PLTNone counts PLT relocations of type NONE, left by linking with
	// --unresolved-symbols=ignore-in-object-files without exporting the
	// symbol: fatal under lazy binding, a crash at the first call under
	// BIND_NOW.
	PLTNone int `json:"plt_none,omitempty"`
	// RelrIgnored are the objects of the load (the file itself, or a
	// library) with DT_RELR relocations that the root's loader ignores
	// (its libc.so.6 has no GLIBC_ABI_DT_RELR: glibc before 2.36): they
	// load with their packed pointers unrelocated, a crash at the first use.
	RelrIgnored []string `json:"relr_ignored,omitempty"`
	// Skipped are library candidates the search passed over, with why
	// ("/x/libfoo.so: wrong architecture aarch64"): what lies behind a
	// "not found" that is not simply absent.
	Skipped []string `json:"skipped"`
	// ViaHost are libraries the file (a shared library) needs but does
	// not find on its own search path, found through a host program's:
	// in a tree, through the program that loads it (Host names it); alone,
	// when the library lies beside it (in its $ORIGIN) and no program of
	// the audit loads it, Host is empty: "found only via its host", a
	// note, not a death.
	ViaHost []HostDep `json:"via_host"`
	// HostProvided are the undefined symbols the --host program's load
	// defines (Options.Host), each with the object that does.
	HostProvided []HostSymbol `json:"host_provided"`
	// Deps, with Options.Tree, are the DT_NEEDED entries of every object
	// loaded, in load order: the tree of the load, as lddtree shows it.
	Deps []ObjectDeps `json:"deps,omitempty"`
	// Error is why the file (or the image's ld.so.cache, or a library to
	// dlopen) could not be read; nil when all went well. It unwraps to
	// an *os.PathError or an *elfx.FormatError; the JSON carries
	// ErrorMessage.
	Error error `json:"-"`

	obj *object // the file's object, for the host pass
	sc  *scope  // a program's scope, while it is audited
	// loads are the shared libraries a program's load brings in, for the
	// host pass (nil after Audit): the pass builds again the scope of a
	// program it needs, so a run does not hold every program's scope.
	loads []fileKey
}

// HostSymbol is an undefined symbol of a library that the --host
// program's load defines: By is the object (the program, or a library it
// loads) whose definition binds it.
type HostSymbol struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Binding string `json:"binding"`
	By      string `json:"by"`
}

// HostDep is a library found through a host's search path rather than
// the needing library's own.
type HostDep struct {
	Name string `json:"name"` // the DT_NEEDED name
	Path string `json:"path"` // where it was found, inside the image
	// Host is the program of the audit whose load found it; empty when
	// none does and the library only lies beside its user.
	Host string `json:"host,omitempty"`
}

// ErrorMessage is the text of Error without the path the report shows
// beside it ("" when there is no error).
func (r FileReport) ErrorMessage() string { return elfx.Message(r.Path, r.Error) }

// MarshalJSON writes the report with "error" as ErrorMessage, so the JSON
// names the file once, in "path" (docs/bind-json.md).
func (r FileReport) MarshalJSON() ([]byte, error) {
	type plain FileReport
	// Arrays are always present, [] when empty (docs/bind-json.md).
	for _, a := range []*[]string{&r.Libraries, &r.Skipped, &r.MissingLibraries} {
		if *a == nil {
			*a = []string{}
		}
	}
	for _, a := range []*[]Unresolved{&r.Unresolved, &r.DlopenMissing} {
		if *a == nil {
			*a = []Unresolved{}
		}
	}
	if r.ViaHost == nil {
		r.ViaHost = []HostDep{}
	}
	if r.HostProvided == nil {
		r.HostProvided = []HostSymbol{}
	}
	return errjson.Marshal(plain(r), r.ErrorMessage(), true)
}

// Unresolved is a reference no loaded object defines.
type Unresolved struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	Relocation string `json:"relocation"`
	// Eager: the loader resolves it before main, so the binary dies.
	Eager   bool   `json:"eager"`
	Binding string `json:"binding"`          // eager, lazy or never
	Object  string `json:"object,omitempty"` // the referencing library, when not the file itself
}

// Audit audits every ELF file under paths, in parallel, results in the
// order of the paths (files of a directory sorted by path).
func (a *Auditor) Audit(ctx context.Context, paths []string) *Result {
	if a.img != nil {
		return a.auditImage(ctx, paths)
	}
	// The walker drops files that are not ELF before they reach a worker,
	// and hands on the head it read, which holds the ELF header and
	// usually the program headers.
	// Inside an image, a followed link must stay in it.
	files := walk.Walk(ctx, paths, walk.Options{Follow: a.follow, Within: a.sysrootReal(), Keep: elfx.IsELF, HeadSize: headSize}, nil)
	return a.process(ctx, files, func(wf walk.File, buf []byte) (FileReport, bool) {
		if wf.Err != nil {
			return errorReport(wf.Path, wf.Err), true
		}
		named := filepath.Clean(wf.Path) == filepath.Clean(paths[wf.Root])
		return a.file(ctx, wf.Path, FileOptions{Named: named, Head: wf.Head}, buf)
	})
}

// AuditFile is Audit of the one file at path, read on the calling
// goroutine: no walker and no workers, whose goroutines, channels and
// stacks cost a fresh process more than the reading of a small file (a
// compiler wrapper's loader proof of its output, once per link). A path
// that is not a regular file (a directory, a symbolic link), or one in
// an image, is Audit's.
func (a *Auditor) AuditFile(ctx context.Context, path string) *Result {
	if a.img != nil {
		return a.Audit(ctx, []string{path})
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return a.Audit(ctx, []string{path})
	}
	res := &Result{Files: []FileReport{}}
	// Cut short, it reads nothing, as process's workers then read
	// nothing; what it read is dropped when it was cut short on the way.
	if ctx.Err() == nil {
		rep, ok := a.file(ctx, path, FileOptions{Named: true}, make([]byte, headSize))
		if ok && ctx.Err() == nil {
			res.Files = append(res.Files, rep)
			res.Found = 1
		}
	}
	if ctx.Err() != nil {
		res.Incomplete, res.Found = true, 1
	}
	return a.finish(ctx, res)
}

// process audits the files in parallel with audit, which gets a buffer of
// its worker's, and keeps the reports audit keeps, in the files' order.
func (a *Auditor) process(ctx context.Context, files <-chan walk.File, audit func(wf walk.File, buf []byte) (FileReport, bool)) *Result {
	var seen, found atomic.Int64
	items := walk.Process(ctx, files, a.workers, func() func(walk.File) (FileReport, bool) {
		buf := make([]byte, headSize)
		return func(wf walk.File) (FileReport, bool) {
			if ctx.Err() != nil {
				seen.Add(1)
				return FileReport{}, false
			}
			if n := seen.Add(1); a.progress != nil && n%256 == 0 {
				a.progress(n)
			}
			rep, ok := audit(wf, buf)
			if ctx.Err() != nil {
				// Cut short on the way: its verdict may be missing
				// what was not looked at.
				return FileReport{}, false
			}
			if ok {
				found.Add(1)
			}
			return rep, ok
		}
	})
	res := &Result{Files: make([]FileReport, 0, len(items))}
	for _, it := range items {
		res.Files = append(res.Files, it.Value)
	}
	res.Found = int(found.Load())
	if ctx.Err() != nil {
		// The files handed on but dropped count as found: at most
		// seen, at least those audited.
		res.Incomplete = true
		res.Found = max(len(res.Files), int(seen.Load()))
	}
	return a.finish(ctx, res)
}

// errorReport is the report on a file that could not be looked at.
func errorReport(p string, err error) FileReport {
	return FileReport{Path: p, Error: err, Unresolved: []Unresolved{}, MissingLibraries: []string{}}
}

// finish audits the libraries that need a host again and drops what the
// audit kept for that.
func (a *Auditor) finish(ctx context.Context, res *Result) *Result {
	if ctx.Err() == nil {
		a.viaHosts(ctx, res.Files)
	}
	if ctx.Err() != nil {
		res.Incomplete = true
	}
	for i := range res.Files {
		res.Files[i].sc, res.Files[i].obj, res.Files[i].loads = nil, nil, nil
	}
	if a.demangle != nil {
		for i := range res.Files {
			for _, us := range [][]Unresolved{res.Files[i].Unresolved, res.Files[i].DlopenMissing} {
				for j := range us {
					us[j].Name = a.demangle(us[j].Name)
				}
			}
		}
	}
	res.Warnings = a.warnings(res)
	return res
}

// viaHosts audits again, with the programs of the same audit as hosts,
// each shared library that needs one it does not find itself: a library
// a program loads sees what that program's load brought in (systemd's
// RUNPATH finds libsystemd-shared for libsystemd-core), so what the
// program found is found, and the report names the program.
func (a *Auditor) viaHosts(ctx context.Context, files []FileReport) {
	want := map[fileKey]bool{}
	for i := range files {
		f := &files[i]
		if f.Kind == elfx.SharedLibrary && f.obj != nil && f.Error == nil && len(f.MissingLibraries)+len(f.ViaHost) > 0 {
			want[f.obj.key] = true
		}
	}
	if len(want) == 0 {
		return
	}
	// The programs that load each such library, in the audit's order.
	hosts := map[fileKey][]*FileReport{}
	for i := range files {
		f := &files[i]
		if f.obj == nil || f.Error != nil || (f.Kind != elfx.Executable && f.Kind != elfx.PIEExecutable) {
			continue
		}
		for _, k := range f.loads {
			if want[k] {
				hosts[k] = append(hosts[k], f)
			}
		}
	}
	// A host's scope is built again when first asked, once.
	scopes := map[*FileReport]*scope{}
	scopeOf := func(h *FileReport) *scope {
		sc := scopes[h]
		if sc == nil {
			sc = a.programScope(ctx, h.Path, h.obj)
			scopes[h] = sc
		}
		return sc
	}
	for i := range files {
		f := &files[i]
		if f.obj == nil || !want[f.obj.key] || len(hosts[f.obj.key]) == 0 {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		mine := hosts[f.obj.key]
		o := f.obj
		rep := FileReport{Path: f.Path, Unresolved: []Unresolved{}, MissingLibraries: []string{}, Relro: "none"}
		a.analyzeWith(ctx, &rep, o, func(n string, l *loaded, beside fallback) (string, *object, string) {
			for _, h := range mine {
				if d := scopeOf(h).byName[n]; d != nil && d.obj.Kind != "" {
					return d.name, d.obj, h.Path
				}
			}
			return beside(n, l, nil)
		})
		*f = rep
	}
}

// headSize is how much of a file is read first: the ELF header and, in
// nearly every file, the program headers.
const headSize = 4096

// FileOptions tell File how a file was found.
type FileOptions struct {
	// Named is set for a path the user named: a file that is not an ELF
	// program or library is then an error, where inside a tree it is
	// skipped.
	Named bool
	// Head, when set, is the start of the file already read (by a tree
	// walker), which saves reading it again.
	Head []byte
}

func (a *Auditor) file(ctx context.Context, p string, opt FileOptions, buf []byte) (rep FileReport, ok bool) {
	rep = FileReport{Path: p, Unresolved: []Unresolved{}, MissingLibraries: []string{}, Relro: "none"}
	defer func() {
		if r := recover(); r != nil { // a bug must not take the run down
			rep.Error = &input.FileError{Path: p, Err: fmt.Errorf("internal error: %v", r)}
			ok = true
		}
	}()
	o, err := a.target(p, opt.Head, buf)
	if err != nil {
		if errors.Is(err, elfx.ErrNotELF) && !opt.Named {
			return rep, false
		}
		rep.Error = err
		return rep, true
	}
	if o.Kind == elfx.DebugInfo {
		rep.Kind, rep.Arch = o.Kind, o.Arch // never run, so never audited
		return rep, true
	}
	if !o.Kind.Program() {
		if opt.Named {
			rep.Error = &input.FileError{Path: p, Err: fmt.Errorf("%s file: neither a program nor a shared library", o.Kind)}
			return rep, true
		}
		return rep, false
	}
	a.analyzeWith(ctx, &rep, o, nil)
	if rep.sc != nil {
		rep.loads, rep.sc = rep.sc.sharedLibraries(), nil
	}
	return rep, true
}

// target reads a file named on this machine. Trees hold far more files
// that are not ELF than files that are, so nothing but the head is read
// for those.
func (a *Auditor) target(p string, head, buf []byte) (*object, error) {
	in, err := a.fsys.open(p, head, buf)
	if err != nil {
		return nil, err
	}
	defer in.close()
	if !in.isELF() {
		return nil, &input.FileError{Path: p, Err: elfx.ErrNotELF}
	}
	o, err := a.objs.parse(in)
	if err != nil && !errors.As(err, new(*os.PathError)) {
		err = &input.FileError{Path: p, Err: err}
	}
	return o, err
}

// verdict is the first error the loader would stop at: the end of its
// message (reason) and the whole line it prints.
type verdict struct{ reason, message string }

// fallback finds a library a shared library's own search did not: the
// path inside the image, the object, and the host program whose load
// found it ("" for one found only beside its user). beside is the
// last resort, the library beside its user.
type fallback func(name string, l *loaded, beside fallback) (string, *object, string)

// analyzeWith is analyze with a host's fallback for a shared library's
// dependencies; nil means beside only.
func (a *Auditor) analyzeWith(ctx context.Context, rep *FileReport, o *object, fb fallback) {
	rep.obj = o
	rep.Arch, rep.Interp, rep.BindNow, rep.Go, rep.GoBindNow, rep.PLTNone = o.Arch, o.Interp, o.BindNow, o.Go, o.GoBindNow, o.PLTNone
	switch {
	case o.Relro && o.BindNow:
		rep.Relro = "full"
	case o.Relro:
		rep.Relro = "partial"
	}
	rep.Kind = o.Kind
	if o.Kind.Static() {
		return
	}
	rep.Plugin = o.Kind == elfx.SharedLibrary && o.Soname == ""
	if err := a.CacheError(); err != nil {
		rep.Error = err
	}
	var hs *scope // the --host program's load
	if a.hostPath != "" && o.Kind == elfx.SharedLibrary && fb == nil {
		var err error
		if hs, err = a.hostLoad(ctx); err != nil {
			rep.Error = err
			return
		}
		fb = func(n string, l *loaded, beside fallback) (string, *object, string) {
			if d := hs.byName[n]; d != nil && d.obj.Kind != "" {
				return d.name, d.obj, a.hostPath
			}
			return beside(n, l, nil)
		}
	}
	root := &loaded{obj: o, name: rep.Path, origin: a.origin(rep.Path)}
	sc := newScope(ctx, root)
	if o.Kind == elfx.SharedLibrary {
		beside := func(n string, l *loaded, _ fallback) (string, *object, string) {
			if strings.Contains(n, "/") || strings.Contains(n, "$") {
				return "", nil, ""
			}
			p := path.Join(l.origin, n)
			if d, _ := a.try(p, o, &NotFoundError{Name: n}); d != nil {
				return p, d, ""
			}
			return "", nil, ""
		}
		sc.fallback = func(n string, l *loaded) (string, *object, string) {
			if fb != nil {
				return fb(n, l, beside)
			}
			return beside(n, l, nil)
		}
	}
	a.fill(sc)
	rep.ViaHost = sc.via
	if o.Kind == elfx.Executable || o.Kind == elfx.PIEExecutable {
		rep.sc = sc
	}
	for _, m := range sc.missing {
		rep.MissingLibraries = append(rep.MissingLibraries, m.name)
		rep.Skipped = append(rep.Skipped, m.skipped...)
		if m.more > 0 {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%d more candidates for %s", m.more, clip(m.name)))
		}
	}
	if len(sc.list) > 1 {
		rep.Libraries = make([]string, 0, len(sc.list)-1)
	}
	for _, l := range sc.list[1:] {
		rep.Libraries = append(rep.Libraries, l.name)
	}
	if a.tree {
		rep.Deps = sc.deps()
	}
	// The kernel looks for the interpreter before the loader runs.
	fatal := a.interpVerdict(rep.Path, o)
	if fatal == nil {
		fatal = a.missingVerdict(rep.Path, sc)
	}
	// Versions are checked for every object before any relocation.
	if fatal == nil {
		fatal = a.checkVersions(rep.Path, sc)
	}
	hostEager, relocFatal, onlyBindNow := a.resolve(rep, sc, hs)
	if fatal == nil {
		fatal = relocFatal
		rep.IfBindNow = onlyBindNow
	}
	switch {
	case fatal != nil:
		rep.DiesAtStart, rep.Reason, rep.Message = true, fatal.reason, fatal.message
	case len(hostEager) > 0:
		rep.HostSymbols = len(hostEager)
		rep.Reason = "plugin: loads only into a program that provides " + hostEager[0].Name
		if len(hostEager) > 1 {
			rep.Reason += fmt.Sprintf(" (and %d more)", len(hostEager)-1)
		}
	}
	if len(a.dlopen) > 0 {
		a.checkDlopen(rep, root, sc)
	}
	rep.RelrIgnored = a.relrIgnored(rep.Path, root, sc)
}

// relrIgnored lists the objects of the load with DT_RELR relocations
// when the libc.so.6 of the load (or, for a library that loads none, the
// one its host would) lacks GLIBC_ABI_DT_RELR: a loader before glibc 2.36
// skips the tag and leaves every packed pointer unrelocated, a crash at
// the first use, not a refusal.
func (a *Auditor) relrIgnored(p string, root *loaded, sc *scope) []string {
	var relr []string
	for i, l := range sc.list {
		if l.obj.Relr {
			name := l.name
			if i == 0 {
				name = p
			}
			relr = append(relr, name)
		}
	}
	if len(relr) == 0 {
		return nil
	}
	var libc *object
	if l := sc.byName["libc.so.6"]; l != nil {
		libc = l.obj
	} else if _, o, err := a.find("libc.so.6", root, root.obj); err == nil {
		libc = o
	}
	// glibc defines the marker from 2.36 on; a libc that is not glibc
	// (no version definitions) is not judged.
	if libc == nil || libc.verdefs == nil || libc.verdefs["GLIBC_ABI_DT_RELR"] || !hasGlibcVersion(libc.verdefs) {
		return nil
	}
	return relr
}

// hasGlibcVersion reports whether defs hold a GLIBC_ version: a glibc.
func hasGlibcVersion(defs map[string]bool) bool {
	for d := range defs {
		if strings.HasPrefix(d, "GLIBC_2.") {
			return true
		}
	}
	return false
}

// RelrWarning says what r's ignored DT_RELR relocations do.
func (r FileReport) RelrWarning() string {
	return fmt.Sprintf("crashes at the first use of a relocated pointer: %s has DT_RELR relocations, which this root's loader (glibc before 2.36) ignores", r.RelrIgnored[0])
}

// origin is $ORIGIN of a file named p on this machine: its real
// directory, inside the image when there is one.
func (a *Auditor) origin(p string) string {
	if a.img != nil {
		if r, err := resolveFS(a.img, "/", p); err == nil {
			p = r
		}
		return path.Dir(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if a.sysroot != "" {
		if rel, err := filepath.Rel(a.sysroot, abs); err == nil && !strings.HasPrefix(rel, "..") {
			abs = "/" + rel
		}
	}
	return filepath.Dir(abs)
}

// missingVerdict is ld.so's message for the first library no search
// found, or whose search ended at a file the loader refuses.
func (a *Auditor) missingVerdict(exe string, sc *scope) *verdict {
	if len(sc.missing) == 0 {
		return nil
	}
	m := sc.missing[0]
	reason := m.broken
	if reason == "" {
		reason = m.name + ": cannot open shared object file: No such file or directory"
	}
	return &verdict{reason, exe + ": error while loading shared libraries: " + reason}
}

// resolve looks up every object's references in the scope, relocating
// from the last object loaded back to the executable as ld.so does. It
// fills rep.Unresolved, and returns a plugin's eager references (its
// host's to satisfy) and the first fatal relocation. With Options.BindNow
// every lazily bound reference is bound at start, as under LD_BIND_NOW=1;
// onlyBindNow then says the file would start as linked, and dies only so.
func (a *Auditor) resolve(rep *FileReport, sc, hs *scope) (hostEager []reference, fatal *verdict, onlyBindNow bool) {
	linkedDies := false
	for i := len(sc.list) - 1; i >= 0; i-- {
		l := sc.list[i]
		obj, display, refs := "", rep.Path, l.obj.refs
		if i > 0 {
			obj, display, refs = l.name, l.name, a.selfUnresolved(sc.ctx, l)
		}
		// Lazy binding's setup refuses PLT relocations of type NONE; bound
		// at start they are skipped, and the first call crashes.
		if l.obj.PLTNone > 0 && !l.obj.BindNow {
			linkedDies = true
			if fatal == nil && !a.bindNow {
				reason := "unexpected PLT reloc type 0x00"
				fatal = &verdict{reason, rep.Path + ": error while loading shared libraries: " + display + ": " + reason}
			}
		}
		var eager []reference
		for _, r := range refs {
			// The host's load comes first in the global scope the
			// library is loaded into (Options.Host).
			if sc.resolves(r, l.obj) {
				continue
			}
			if hs != nil && hs.resolves(r, l.obj) {
				if i == 0 {
					rep.HostProvided = append(rep.HostProvided, HostSymbol{Name: r.Name, Version: r.Version, Binding: r.Binding, By: hs.providerOf(r.Name, r.Version)})
				}
				continue
			}
			atStart := r.Binding == "eager" || a.bindNow && r.Binding == "lazy"
			rep.Unresolved = append(rep.Unresolved, Unresolved{Name: r.Name, Version: r.Version, Relocation: r.Reloc,
				Eager: atStart, Binding: r.Binding, Object: obj})
			if atStart {
				eager = append(eager, r)
			}
		}
		sort.SliceStable(eager, func(i, j int) bool { return eager[i].order < eager[j].order })
		if rep.Plugin && i == 0 {
			hostEager, eager = eager, nil
		}
		for _, r := range eager {
			linkedDies = linkedDies || r.Binding == "eager"
		}
		if len(eager) > 0 && fatal == nil {
			reason := "undefined symbol: " + eager[0].Name
			if eager[0].Version != "" {
				reason += ", version " + eager[0].Version
			}
			fatal = &verdict{reason, rep.Path + ": symbol lookup error: " + display + ": " + reason}
		}
	}
	return hostEager, fatal, fatal != nil && !linkedDies
}

// checkDlopen adds the libraries the program loads itself (and what they
// need) to the global scope and lists the lazily bound symbols still
// unresolved.
func (a *Auditor) checkDlopen(rep *FileReport, root *loaded, sc *scope) {
	for _, name := range a.dlopen {
		p, o, err := a.find(name, root, root.obj)
		if err != nil {
			if rep.Error == nil {
				rep.Error = fmt.Errorf("library to dlopen: %w", err)
			}
			continue
		}
		sc.add(&loaded{obj: o, name: p, origin: filepath.Dir(p), loader: root}, name)
	}
	a.fill(sc)
	for _, u := range rep.Unresolved {
		if u.Binding == "lazy" && !sc.provides(u.Name, u.Version) {
			rep.DlopenMissing = append(rep.DlopenMissing, u)
		}
	}
}

// checkVersions is ld.so's _dl_check_all_versions: every version an
// object needs from a loaded library must be defined there, unless weak.
func (a *Auditor) checkVersions(exe string, sc *scope) *verdict {
	for i, l := range sc.list {
		user := exe
		if i > 0 {
			user = l.name
		}
		for _, vn := range l.obj.verneeds {
			dep := sc.byName[vn.File]
			if dep == nil || dep.obj.verdefs == nil {
				continue // missing (reported already) or unversioned: ld.so only warns
			}
			for _, v := range vn.Versions {
				if !v.Weak() && !dep.obj.verdefs[v.Name] {
					reason := fmt.Sprintf("%s: version `%s' not found (required by %s)", dep.name, v.Name, user)
					return &verdict{reason, exe + ": " + reason}
				}
			}
		}
	}
	return nil
}

// sysrootReal is the host directory of the image root given with
// --sysroot, links resolved, or "" with none (or with --image, whose
// files are not on this machine).
func (a *Auditor) sysrootReal() string {
	if a.sysroot == "" || a.img != nil {
		return ""
	}
	abs, err := filepath.Abs(a.sysroot)
	if err != nil {
		return a.sysroot
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// PLTNoneWarning says what r's PLT relocations of type NONE do.
func (r FileReport) PLTNoneWarning() string {
	return fmt.Sprintf("crashes at the first call through a PLT entry: %d PLT relocations of type NONE (symbols ignored at link time: --unresolved-symbols=ignore-all or ignore-in-object-files)", r.PLTNone)
}

// HostOnly are the dependencies of r found only beside it, through no
// program of the audit: its host's search path must find them.
func (r FileReport) HostOnly() []HostDep {
	var out []HostDep
	for _, v := range r.ViaHost {
		if v.Host == "" {
			out = append(out, v)
		}
	}
	return out
}

// Note says what a dependency found only beside its user means.
func (d HostDep) Note() string {
	return d.Name + " lies beside the library, not on its own search path: only a host program's search path finds it"
}

// hostLoad is the load of the --host program, built once per run: the
// program and what it loads at start (and --dlopen's libraries).
func (a *Auditor) hostLoad(ctx context.Context) (*scope, error) {
	a.hostOnce.Do(func() {
		o, err := a.target(a.hostPath, nil, make([]byte, headSize))
		if err != nil {
			a.hostErr = fmt.Errorf("host program: %w", err)
			return
		}
		if o.Kind != elfx.Executable && o.Kind != elfx.PIEExecutable {
			a.hostErr = fmt.Errorf("host program %s: not a program (%s)", a.hostPath, o.Kind)
			return
		}
		a.hostSc = a.programScope(ctx, a.hostPath, o)
	})
	return a.hostSc, a.hostErr
}
