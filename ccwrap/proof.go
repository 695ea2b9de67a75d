package ccwrap

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
)

// Proof is what the output was proven against and what failed.
type Proof struct {
	Output string
	Glibc  string // the release linked against
	// Violations are the output's floors above the limits.
	Violations []floor.Violation
	// Loader are the loader's objections: symbols no library the output
	// loads defines on the target.
	Loader []string
	// Lazy are the output's lazily bound symbols that no library it
	// loads at start defines (the go-nvml pattern: functions of a library
	// it dlopens): it starts, and dies at the first call to one unless a
	// library loaded by then defines it. A warning, as bind's.
	Lazy []string
	// Removed: the proof failed and the output was removed.
	Removed bool
}

// OK reports whether the proof holds.
func (p *Proof) OK() bool { return len(p.Violations) == 0 && len(p.Loader) == 0 }

// Warnings are the proof's warnings, one line each, for a person.
func (p *Proof) Warnings() []string {
	if len(p.Lazy) == 0 {
		return nil
	}
	n := "1 symbol"
	if len(p.Lazy) > 1 {
		n = fmt.Sprintf("%d symbols", len(p.Lazy))
	}
	more := ""
	if len(p.Lazy) > 5 {
		more = fmt.Sprintf(" and %d more", len(p.Lazy)-5)
	}
	return []string{fmt.Sprintf("%s: %s lazily bound that no library it loads at start defines: it dies at the first call to %s%s unless a library it loads itself defines them (--dlopen LIB checks them; linked with -z now it would die at start)",
		p.Output, n, strings.Join(p.Lazy[:min(len(p.Lazy), 5)], ", "), more)}
}

// Problems are the proof's failures, one line each, for a person.
func (p *Proof) Problems() []string {
	var out []string
	for _, v := range p.Violations {
		syms := make([]string, len(v.Symbols))
		for i, s := range v.Symbols {
			syms[i] = s.String()
		}
		if v.Rule != "" {
			out = append(out, fmt.Sprintf("%s: %s: %s", v.Path, v.Cause(), strings.Join(syms, " ")))
			continue
		}
		out = append(out, fmt.Sprintf("%s: needs %s %s, above the floor %s: %s", v.Path, v.Namespace, v.Required, v.Allowed, strings.Join(syms, " ")))
	}
	for _, m := range p.Loader {
		out = append(out, p.Output+": "+m)
	}
	if p.Removed {
		out = append(out, p.Output+": removed, as a failed link's output is: a build must not take it for up to date")
	}
	return out
}

// prove checks the linked file's floors against the limits, then the
// loader's view.
func (w *Wrapper) prove(ctx context.Context, line ccLine, aud *bind.Auditor, a *glibc.Arch) (*Proof, error) {
	p := &Proof{Output: line.output, Glibc: w.limits["GLIBC"]}
	// The floor's own loader checks against a GLIBC limit read the
	// release's symbols out of the embedded database (most of a warm
	// call's cost), and the loader proof below makes them against the
	// stubs anyway: the floors are held to the other limits first, and
	// to GLIBC by its number; only an output above it is scanned again
	// with every limit, for the violation's symbols.
	others := floor.Limits{}
	for ns, v := range w.limits {
		if floor.CanonicalNamespace(ns) != "GLIBC" {
			others[ns] = v
		}
	}
	// The loader's view is read beside the floor scan, on the core the
	// compiler has left (both only read the output); it counts only when
	// the floors raise no violation, and is cancelled otherwise.
	var view struct{ msgs, lazy []string }
	lctx, cancel := context.WithCancel(ctx)
	viewed := make(chan struct{})
	go func() {
		defer close(viewed)
		view.msgs, view.lazy = loaderProof(lctx, line, aud, a.Name, w.limits["GLIBC"], w.o.Dlopen)
	}()
	defer func() {
		cancel()
		<-viewed
	}()
	res, err := scanOutput(ctx, line.output, others)
	if err != nil {
		return nil, err
	}
	if lim, ok := w.limits.Lookup("GLIBC"); ok && symver.Compare(res.Files[0].Floors["GLIBC"], lim) > 0 {
		if res, err = scanOutput(ctx, line.output, w.limits); err != nil {
			return nil, err
		}
	}
	// The loader's own checks against the release are the loader
	// proof's here, made against the stubs themselves.
	for _, v := range res.Violations {
		switch v.Rule {
		case floor.RuleUndefined, floor.RuleInterpreter, floor.RuleBindNow:
			continue
		}
		p.Violations = append(p.Violations, v)
	}
	if len(p.Violations) == 0 {
		<-viewed
		p.Loader, p.Lazy = view.msgs, view.lazy
	}
	return p, nil
}

// scanOutput is the floor scan of the linked file alone, which must be
// read whole: an error or an interrupted scan proves nothing.
func scanOutput(ctx context.Context, output string, limits floor.Limits) (*floor.Result, error) {
	res := floor.ScanFile(ctx, output, floor.Options{Limits: limits, Workers: 1})
	for _, f := range res.Files {
		if f.Error != nil {
			return nil, fmt.Errorf("%s: %s", f.Path, f.ErrorMessage())
		}
	}
	if res.Incomplete || len(res.Files) != 1 {
		return nil, fmt.Errorf("%s: nothing was proven (interrupted)", output)
	}
	return res, nil
}

// loaderProof audits the output as ld.so would load it on the target: the
// stubs stand for the target's glibc, then the link's -L directories, then
// this machine's libraries. Every symbol the output itself binds at start
// must be defined, with its version, by a library it loads. A shared
// library may leave symbols to its host, so there only glibc's count. What
// other libraries of this machine lack (the host's libgcc_s needs the
// host's glibc) is not the output's to answer for. An executable's lazily
// bound symbols that are not glibc's are bind's warning (lazy), not a
// failure: the program dlopens their library before the first call (the
// go-nvml pattern); with dlopen named, they must be defined there.
func loaderProof(ctx context.Context, line ccLine, aud *bind.Auditor, arch, target string, dlopen []string) (msgs, lazy []string) {
	res := aud.AuditFile(ctx, line.output)
	if res.Incomplete || len(res.Files) == 0 {
		// A proof cut short proves nothing: never an empty "no objection".
		return []string{"the loader's view was not proven (interrupted)"}, nil
	}
	var db *glibc.Index
	for _, f := range res.Files {
		if f.Error != nil {
			return []string{f.ErrorMessage()}, nil
		}
		if f.PLTNone > 0 {
			msgs = append(msgs, fmt.Sprintf("%d PLT relocations of symbols ignored at link time: %s", f.PLTNone, f.Reason))
		}
		for _, u := range f.Unresolved {
			if u.Object != "" {
				continue
			}
			if db == nil {
				a, err := glibc.LoadArch(arch, true)
				if err != nil {
					return []string{err.Error()}, nil
				}
				db = a.Index(target)
			}
			_, known := db.Lookup(u.Name)
			isGlibc := strings.HasPrefix(u.Version, "GLIBC_")
			if l, ok := glibcHint(db, u.Name, target); ok {
				msgs = append(msgs, l)
				continue
			}
			// With a library missing, the symbols it would define are
			// not a dlopen pattern but that library's absence.
			if !known && !isGlibc && !u.Eager && !line.shared && len(f.MissingLibraries) == 0 {
				// Bound at the first call, not at start (or never
				// looked up: no relocation uses it).
				if len(dlopen) == 0 && u.Binding == "lazy" {
					lazy = append(lazy, u.SymbolName())
				}
				continue
			}
			if known || isGlibc || !line.shared {
				v := ""
				if u.Version != "" {
					v = ", version " + u.Version
				}
				msgs = append(msgs, fmt.Sprintf("undefined symbol: %s%s: no library it loads defines it on glibc %s", u.Name, v, target))
			}
		}
		for _, u := range f.DlopenMissing {
			msgs = append(msgs, "would fail at the first call to "+u.SymbolName()+": no --dlopen library defines it")
		}
	}
	return msgs, lazy
}

// newProofAuditor is the auditor of line's loader proof (loaderProof),
// which finds libraries on proofPath.
func newProofAuditor(line ccLine, stubs string, dlopen []string) *bind.Auditor {
	return bind.New(bind.Options{LibraryPath: proofPath(line, stubs), Workers: 1, Dlopen: dlopen})
}

// preloadPaths are the files the loader proof of a link made with the
// stubs reads whatever the link: the target's libc and, with -pthread,
// its libpthread (separate up to glibc 2.33), and the loader an
// executable names, at the path the architecture's ABI gives it. Each is
// a file nothing rewrites during the link (the stubs are a cache entry,
// never changed once made).
func preloadPaths(line ccLine, stubs string, a *glibc.Arch) []string {
	paths := []string{filepath.Join(stubs, "libc.so.6")}
	if line.pthread {
		paths = append(paths, filepath.Join(stubs, "libpthread.so.0"))
	}
	if !line.shared {
		for _, dir := range []string{"/lib64", "/lib"} {
			if p := filepath.Join(dir, a.Loader); exists(p) {
				paths = append(paths, p)
				break
			}
		}
	}
	return paths
}

// proofPath is where the loader proof finds libraries: the stubs, then
// the link's -L directories and the directories of libraries it was given
// by path (libtool links its uninstalled libraries so).
func proofPath(line ccLine, stubs string) []string {
	path := []string{stubs}
	for _, d := range line.libDirs {
		if abs, err := filepath.Abs(d); err == nil {
			path = append(path, abs)
		}
	}
	for _, f := range line.libFiles {
		if abs, err := filepath.Abs(filepath.Dir(f)); err == nil && !slices.Contains(path, abs) {
			path = append(path, abs)
		}
	}
	return path
}

// hostLibsBeyond: the libraries the output loads, other than glibc's
// (the stubs) and the C++ runtime (the target's own copy runs it), that
// need a glibc above target, one line each, as the link editor's
// complaint would have been explained.
func hostLibsBeyond(ctx context.Context, line ccLine, stubs, target string) []string {
	res := newProofAuditor(line, stubs, nil).Audit(ctx, []string{line.output})
	var libs []string
	for _, f := range res.Files {
		for _, l := range f.Libraries {
			switch filepath.Base(l) {
			case "libstdc++.so.6", "libgcc_s.so.1":
				continue
			}
			if !strings.HasPrefix(l, stubs+"/") {
				libs = append(libs, l)
			}
		}
	}
	if len(libs) == 0 {
		return nil
	}
	var out []string
	for _, v := range floor.Scan(ctx, libs, floor.Options{Limits: floor.Limits{"GLIBC": target}}).Violations {
		if v.Rule == "" && v.Namespace == "GLIBC" {
			out = append(out, fmt.Sprintf("%s was built for a newer glibc than %s: it needs GLIBC %s; link one built for %s", v.Path, target, v.Required, target))
		}
	}
	return out
}
