package bind

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/walk"
	"golang.org/x/sys/unix"
)

// Options configure an Auditor.
type Options struct {
	// Sysroot is an image root: the cache, absolute paths and symbolic
	// links are all resolved inside it.
	Sysroot string
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
}

// Auditor audits binaries against one image. Parsed libraries are shared by
// every binary it audits; it is safe for concurrent use.
type Auditor struct {
	sysroot   string
	libPath   []string
	cachePath string
	dlopen    []string
	follow    bool
	workers   int
	multiarch bool
	progress  func(int64)

	objs      objects
	cacheOnce sync.Once
	ldcache   *Cache
	cacheErr  error

	selfMu sync.Mutex
	self   map[*Object]*selfEntry
}

// New makes an Auditor. It reads nothing until asked.
func New(opt Options) *Auditor {
	a := &Auditor{sysroot: opt.Sysroot, libPath: opt.LibraryPath, dlopen: opt.Dlopen, follow: opt.Follow, workers: opt.Workers, progress: opt.Progress,
		objs: objects{byPath: map[string]*pathEntry{}, byKey: map[fileKey]*Object{}}, self: map[*Object]*selfEntry{}}
	if opt.CacheFile != "" {
		a.cachePath = opt.CacheFile
	}
	if a.workers <= 0 {
		a.workers = 2 * runtime.GOMAXPROCS(0)
	}
	// Debian-style images keep libraries in multiarch directories; the
	// default search path and $LIB follow the image, not this machine.
	for _, d := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"} {
		if h, err := a.host(d); err == nil {
			if st, err := os.Stat(h); err == nil && st.IsDir() {
				a.multiarch = true
				break
			}
		}
	}
	return a
}

// CacheError is the error reading the image's ld.so.cache, if any.
func (a *Auditor) CacheError() error { a.cache(); return a.cacheErr }

// Parsed is the number of distinct files parsed so far.
func (a *Auditor) Parsed() int {
	a.objs.mu.Lock()
	defer a.objs.mu.Unlock()
	return a.objs.parsed
}

// Result is a whole audit. Field names are part of the JSON contract
// (docs/bind-json.md).
type Result struct {
	Files []FileReport `json:"files"`
}

// FileReport is the verdict on one binary.
type FileReport struct {
	Path string `json:"path"`
	// Kind is executable (it has a program interpreter), library (loaded
	// on its own for the audit; a plugin's host may provide what it lacks)
	// or static.
	Kind   string `json:"kind,omitempty"`
	Arch   string `json:"arch,omitempty"`
	Interp string `json:"interp,omitempty"`
	// BindNow: every relocation is resolved before main (DT_BIND_NOW,
	// DF_BIND_NOW, DF_1_NOW).
	BindNow bool `json:"bind_now"`
	// Relro is none, partial (PT_GNU_RELRO) or full (and BIND_NOW).
	Relro string `json:"relro"`
	// Go: linked by the Go linker; GoBindNow: and it asked for BIND_NOW.
	Go bool `json:"go,omitempty"`
	// Plugin: a library without DT_SONAME, which nothing links against;
	// a program loads it with dlopen and provides the symbols it lacks
	// (Perl and Python modules). Its unresolved symbols are then the
	// host's to provide, not a failure: HostSymbols counts the eager ones.
	Plugin      bool   `json:"plugin,omitempty"`
	HostSymbols int    `json:"host_symbols,omitempty"`
	DiesAtStart bool   `json:"dies_at_start"`
	Reason      string `json:"reason,omitempty"`
	// Message is the whole line ld.so would print.
	Message          string       `json:"message,omitempty"`
	Unresolved       []Unresolved `json:"unresolved"`
	MissingLibraries []string     `json:"missing_libraries"`
	// Libraries is the load order after the file itself.
	Libraries []string `json:"libraries,omitempty"`
	// DlopenMissing are lazily bound symbols none of the --dlopen
	// libraries provides: the program would fail at the first call.
	DlopenMissing []Unresolved `json:"dlopen_missing,omitempty"`
	// PLTNone counts PLT relocations of type NONE, left by linking with
	// --unresolved-symbols=ignore-in-object-files without exporting the
	// symbol: fatal under lazy binding, a crash at the first call under
	// BIND_NOW.
	PLTNone int    `json:"plt_none,omitempty"`
	Error   string `json:"error,omitempty"`
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
	// The walker drops files that are not ELF before they reach a worker.
	files := walk.Walk(ctx, paths, walk.Options{Follow: a.follow, Keep: elfx.IsELF, HeadSize: 64}, nil)
	var seen atomic.Int64
	items := walk.Process(files, a.workers, func() func(walk.File) (FileReport, bool) {
		return func(wf walk.File) (FileReport, bool) {
			if ctx.Err() != nil {
				return FileReport{}, false
			}
			if n := seen.Add(1); a.progress != nil && n%256 == 0 {
				a.progress(n)
			}
			if wf.Err != nil {
				return FileReport{Path: wf.Path, Error: wf.Err.Error(), Unresolved: []Unresolved{}, MissingLibraries: []string{}}, true
			}
			explicit := filepath.Clean(wf.Path) == filepath.Clean(paths[wf.Root])
			return a.File(wf.Path, explicit)
		}
	})
	res := &Result{Files: make([]FileReport, 0, len(items))}
	for _, it := range items {
		res.Files = append(res.Files, it.Value)
	}
	return res
}

// File audits one file. Files that are not ELF are skipped (ok false)
// unless explicit, when they are an error.
func (a *Auditor) File(p string, explicit bool) (rep FileReport, ok bool) {
	rep = FileReport{Path: p, Unresolved: []Unresolved{}, MissingLibraries: []string{}, Relro: "none"}
	defer func() {
		if r := recover(); r != nil { // a bug must not take the run down
			rep.Error = fmt.Sprintf("%s: internal error: %v", p, r)
			ok = true
		}
	}()
	o, err := a.target(p)
	if err != nil {
		if errors.Is(err, elfx.ErrNotELF) && !explicit {
			return rep, false
		}
		var fe *elfx.FormatError
		if errors.As(err, &fe) || errors.Is(err, elfx.ErrNotELF) {
			err = fmt.Errorf("%s: %w", p, err)
		}
		rep.Error = err.Error()
		return rep, true
	}
	if o.Type != elf.ET_EXEC && o.Type != elf.ET_DYN {
		if explicit {
			rep.Error = fmt.Sprintf("%s: %v is neither an executable nor a shared object", p, o.Type)
			return rep, true
		}
		return rep, false
	}
	a.analyze(&rep, o)
	return rep, true
}

func (a *Auditor) analyze(rep *FileReport, o *Object) {
	rep.Arch, rep.Interp, rep.BindNow, rep.Go, rep.PLTNone = o.Arch, o.Interp, o.BindNow, o.Go, o.PLTNone
	switch {
	case o.Relro && o.BindNow:
		rep.Relro = "full"
	case o.Relro:
		rep.Relro = "partial"
	}
	switch {
	case o.Static:
		rep.Kind = "static"
		return
	case o.Interp != "":
		rep.Kind = "executable"
	default:
		rep.Kind = "library"
		rep.Plugin = o.Soname == ""
	}
	if err := a.CacheError(); err != nil {
		rep.Error = err.Error()
	}
	abs, err := filepath.Abs(rep.Path)
	if err != nil {
		abs = rep.Path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r // the executable's $ORIGIN is its real directory
	}
	if a.sysroot != "" {
		if rel, err := filepath.Rel(a.sysroot, abs); err == nil && !strings.HasPrefix(rel, "..") {
			abs = "/" + rel
		}
	}
	root := &loaded{obj: o, name: rep.Path, origin: filepath.Dir(abs)}
	sc := a.loadOrder(root)
	for _, m := range sc.missing {
		rep.MissingLibraries = append(rep.MissingLibraries, m.name)
	}
	for _, l := range sc.list[1:] {
		rep.Libraries = append(rep.Libraries, l.name)
	}
	var fatal []string  // reason, message
	var hostEager []Ref // a plugin's eager references its host must satisfy
	if len(sc.missing) > 0 {
		m := sc.missing[0]
		reason := m.name + ": cannot open shared object file: No such file or directory"
		fatal = []string{reason, rep.Path + ": error while loading shared libraries: " + reason}
	}
	// Versions are checked for every object before any relocation.
	if fatal == nil {
		fatal = a.checkVersions(rep.Path, sc)
	}
	// Relocation runs from the last object loaded back to the executable.
	for i := len(sc.list) - 1; i >= 0; i-- {
		l := sc.list[i]
		obj := ""
		if i > 0 {
			obj = l.name
		}
		display := rep.Path
		if i > 0 {
			display = l.name
		}
		if l.obj.PLTNone > 0 && !l.obj.BindNow && fatal == nil {
			reason := "unexpected PLT reloc type 0x00"
			fatal = []string{reason, rep.Path + ": error while loading shared libraries: " + display + ": " + reason}
		}
		refs := l.obj.refs
		if i > 0 {
			refs = a.selfUnresolved(l)
		}
		var eager []Ref
		for _, r := range refs {
			if sc.resolves(r, l.obj) {
				continue
			}
			rep.Unresolved = append(rep.Unresolved, Unresolved{Name: r.Name, Version: r.Version, Relocation: r.Reloc,
				Eager: r.Binding == "eager", Binding: r.Binding, Object: obj})
			if r.Binding == "eager" {
				eager = append(eager, r)
			}
		}
		if rep.Plugin && i == 0 {
			hostEager, eager = eager, nil
		}
		if len(eager) > 0 && fatal == nil {
			sort.SliceStable(eager, func(i, j int) bool { return eager[i].order < eager[j].order })
			reason := "undefined symbol: " + eager[0].Name
			if eager[0].Version != "" {
				reason += ", version " + eager[0].Version
			}
			fatal = []string{reason, rep.Path + ": symbol lookup error: " + display + ": " + reason}
		}
	}
	if fatal != nil {
		rep.DiesAtStart, rep.Reason, rep.Message = true, fatal[0], fatal[1]
	} else if len(hostEager) > 0 {
		sort.SliceStable(hostEager, func(i, j int) bool { return hostEager[i].order < hostEager[j].order })
		rep.HostSymbols = len(hostEager)
		rep.Reason = "plugin: loads only into a program that provides " + hostEager[0].Name
		if len(hostEager) > 1 {
			rep.Reason += fmt.Sprintf(" (and %d more)", len(hostEager)-1)
		}
	}
	if len(a.dlopen) > 0 {
		a.checkDlopen(rep, root, sc)
	}
}

// checkDlopen adds the --dlopen libraries (and what they need) to the
// global scope and lists the lazily bound symbols still unresolved.
func (a *Auditor) checkDlopen(rep *FileReport, root *loaded, sc *scope) {
	for _, name := range a.dlopen {
		p, o, err := a.find(name, root, root.obj)
		if err != nil {
			if rep.Error == "" {
				rep.Error = fmt.Sprintf("--dlopen %s: %v", name, err)
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
func (a *Auditor) checkVersions(exe string, sc *scope) []string {
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
					return []string{reason, exe + ": " + reason}
				}
			}
		}
	}
	return nil
}

// target reads a file named on this machine. Trees hold far more files
// that are not ELF than files that are, so the magic is read with the
// first pread and nothing else is done for them.
func (a *Auditor) target(p string) (*Object, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	f := &file{fd: fd, path: p}
	defer f.close()
	head := make([]byte, 4096)
	n, err := unix.Pread(fd, head, 0)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: p, Err: err}
	}
	if !elfx.IsELF(head[:n]) {
		return nil, elfx.ErrNotELF
	}
	if err := f.stat(); err != nil {
		return nil, err
	}
	return a.objs.parse(f, head[:n])
}
