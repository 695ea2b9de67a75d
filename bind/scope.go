package bind

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"sync"

	"github.com/abifloor/abifloor/elfx"
)

// scope is a global scope as ld.so builds it: the executable, then its
// DT_NEEDED entries breadth-first, each object once (matched by the names
// it was loaded as, its soname, and its file identity), so cycles end.
type scope struct {
	ctx     context.Context // the audit's: a load stops when it is done
	list    []*loaded
	byName  map[string]*loaded
	byKey   map[fileKey]*loaded
	missing []missingLib
	next    int // first object whose DT_NEEDED entries are not yet loaded
	// fallback, when set, finds what a search did not (through a host,
	// or beside the needing library), recorded in via.
	fallback func(name string, l *loaded) (string, *object, string)
	via      []HostDep
	// byDef indexes the definitions of list[:indexed] by name, once
	// lookups have cost probes enough (index).
	byDef   map[string][]*object
	indexed int
	probes  int // objects looked at one by one so far
	cost    int // definitions of list[:costed]: what indexing costs
	costed  int
}

type missingLib struct {
	name    string
	needer  *loaded
	skipped []string // candidates passed over, with why
	more    int      // and how many more, not listed
	broken  string   // a candidate that ended the search, in ld.so's words
}

func newScope(ctx context.Context, root *loaded) *scope {
	sc := &scope{ctx: ctx, byName: map[string]*loaded{}, byKey: map[fileKey]*loaded{}}
	sc.add(root, root.name)
	return sc
}

// add appends l unless the same file is loaded already; it returns the
// object that stands for it.
func (sc *scope) add(l *loaded, as string) *loaded {
	if prev := sc.byKey[l.obj.key]; prev != nil && l.obj.key != (fileKey{}) {
		sc.byName[as] = prev
		return prev
	}
	sc.list = append(sc.list, l)
	sc.byKey[l.obj.key] = l
	for _, n := range l.obj.names(as) {
		if sc.byName[n] == nil {
			sc.byName[n] = l
		}
	}
	sc.byName[l.name] = l
	return l
}

// loadOrder builds the global scope of the executable root.
func (a *Auditor) loadOrder(ctx context.Context, root *loaded) *scope {
	sc := newScope(ctx, root)
	a.fill(sc)
	return sc
}

// programScope builds again the global scope an audit of the program o
// at p built: its load, and the libraries it loads itself (--dlopen).
func (a *Auditor) programScope(ctx context.Context, p string, o *object) *scope {
	root := &loaded{obj: o, name: p, origin: a.origin(p)}
	sc := a.loadOrder(ctx, root)
	if len(a.dlopen) > 0 {
		for _, name := range a.dlopen {
			if p, o, err := a.find(name, root, root.obj); err == nil {
				sc.add(&loaded{obj: o, name: p, origin: filepath.Dir(p), loader: root}, name)
			}
		}
		a.fill(sc)
	}
	return sc
}

// sharedLibraries are the keys of the shared libraries of the scope
// beyond its root: the libraries a program may host.
func (sc *scope) sharedLibraries() []fileKey {
	var out []fileKey
	for _, l := range sc.list[1:] {
		if l.obj.Kind == elfx.SharedLibrary {
			out = append(out, l.obj.key)
		}
	}
	return out
}

// fill loads the DT_NEEDED entries of every object not yet expanded.
func (a *Auditor) fill(sc *scope) {
	if len(sc.list) == 1 && sc.next == 0 {
		// A new scope: sized as the largest so far, so a deep load does
		// not grow its maps step by step.
		if h := int(min(a.scopeHint.Load(), 1<<12)); h > 8 {
			byName, byKey := make(map[string]*loaded, 2*h), make(map[fileKey]*loaded, h)
			for k, v := range sc.byName {
				byName[k] = v
			}
			for k, v := range sc.byKey {
				byKey[k] = v
			}
			sc.byName, sc.byKey = byName, byKey
			sc.list = append(make([]*loaded, 0, h), sc.list...)
		}
		defer func() {
			if n := int64(len(sc.list)); n > a.scopeHint.Load() {
				a.scopeHint.Store(n)
			}
		}()
	}
	var interp *loaded
	if it := sc.list[0].obj.Interp; it != "" {
		if o, err := a.open(it, sc.list[0].obj); err == nil {
			interp = &loaded{obj: o, name: it, origin: path.Dir(it)}
		}
	}
	for ; sc.next < len(sc.list); sc.next++ {
		l := sc.list[sc.next]
		if sc.ctx.Err() != nil {
			return
		}
		for _, n := range l.obj.Needed {
			if sc.byName[n] != nil {
				continue
			}
			// The loader itself is already in memory and answers to its
			// soname, whatever the search path says.
			if interp != nil && (n == interp.obj.Soname || n == path.Base(interp.name)) {
				sc.add(&loaded{obj: interp.obj, name: interp.name, origin: interp.origin, loader: l}, n)
				continue
			}
			e := a.lookup(n, l, sc.list[0].obj)
			p, o, err := e.path, e.obj, e.err
			if err != nil && sc.fallback != nil {
				if fp, fo, host := sc.fallback(n, l); fo != nil {
					sc.add(&loaded{obj: fo, name: fp, origin: path.Dir(fp), loader: l}, n)
					sc.via = append(sc.via, HostDep{Name: n, Path: fp, Host: host})
					continue
				}
			}
			if err != nil {
				m := missingLib{name: n, needer: l}
				if nf := (*NotFoundError)(nil); errors.As(err, &nf) {
					m.skipped, m.more, m.broken = nf.Skipped, nf.More, nf.Broken
				}
				sc.missing = append(sc.missing, m)
				sc.byName[n] = &loaded{obj: &object{}, name: n} // report once
				continue
			}
			sc.add(&loaded{obj: o, name: p, origin: e.dir, loader: l}, n)
		}
	}
}

// provides reports whether any object of the scope defines name@version.
func (sc *scope) provides(name, version string) bool {
	return sc.providesExcept(name, version, nil)
}

// resolves reports whether the reference r of object self is resolved.
func (sc *scope) resolves(r reference, self *object) bool {
	if r.copy {
		return sc.providesExcept(r.Name, r.Version, self)
	}
	return sc.providesExcept(r.Name, r.Version, nil)
}

func (sc *scope) providesExcept(name, version string, skip *object) bool {
	hash := elfx.GNUHashOf(name)
	if sc.index(len(sc.list)) {
		for _, o := range sc.byDef[name] {
			if o != skip && o.providesHash(name, version, hash) {
				return true
			}
		}
		return false
	}
	for _, l := range sc.list {
		if l.obj != skip && l.obj.providesHash(name, version, hash) {
			return true
		}
	}
	return false
}

// index reports whether lookups go through byDef, an index of the
// scope's definitions by name, building or extending it when the lookups
// made one object at a time have cost as much as indexing: a scope of a
// thousand objects, each leaving references its own load does not
// resolve, would otherwise cost a thousand lookups per reference per
// binary. Each lookup then costs the objects that define the name.
func (sc *scope) index(probes int) bool {
	if sc.byDef == nil {
		sc.probes += probes
		for ; sc.costed < len(sc.list); sc.costed++ {
			sc.cost += sc.list[sc.costed].obj.defCount()
		}
		// A probe is a bloom-filter test; indexing a definition, a map
		// entry: some sixteen probes.
		if sc.probes <= 16*sc.cost+1024 {
			return false
		}
		sc.byDef = map[string][]*object{}
	}
	for ; sc.indexed < len(sc.list); sc.indexed++ {
		o := sc.list[sc.indexed].obj
		o.eachName(func(n string) {
			if ds := sc.byDef[n]; len(ds) == 0 || ds[len(ds)-1] != o {
				sc.byDef[n] = append(ds, o)
			}
		})
	}
	return true
}

// selfEntry memoises, per library, the references its own dependency
// closure leaves unresolved. Whatever else a program loads, those objects
// are loaded with the library, and resolving only gets easier with more
// objects in scope, so only this residue has to be looked up again in
// each binary's scope: a library's hundreds of references cost once per
// run, not once per binary.
type selfEntry struct {
	once sync.Once
	refs []reference
}

func (a *Auditor) selfUnresolved(ctx context.Context, l *loaded) []reference {
	a.selfMu.Lock()
	e := a.self[l.obj]
	if e == nil {
		e = &selfEntry{}
		a.self[l.obj] = e
	}
	a.selfMu.Unlock()
	e.once.Do(func() {
		if len(l.obj.refs) == 0 {
			return
		}
		// The closure as if the library were loaded on its own: its own
		// RPATH/RUNPATH and $ORIGIN only (the exact loader chain may find
		// more, which the per-binary check then sees).
		sc := a.loadOrder(ctx, &loaded{obj: l.obj, name: l.name, origin: l.origin})
		for _, r := range l.obj.refs {
			if !sc.resolves(r, l.obj) {
				e.refs = append(e.refs, r)
			}
		}
	})
	if ctx.Err() != nil {
		// Cut short: the residue may be wrong, so it is not kept for
		// another audit by this Auditor.
		a.selfMu.Lock()
		if a.self[l.obj] == e {
			delete(a.self, l.obj)
		}
		a.selfMu.Unlock()
	}
	return e.refs
}

// deps is the tree of the load: each object's DT_NEEDED entries and the
// path each was found at.
func (sc *scope) deps() []ObjectDeps {
	out := make([]ObjectDeps, 0, len(sc.list))
	for i, l := range sc.list {
		od := ObjectDeps{Needed: make([]Dep, 0, len(l.obj.Needed))}
		if i > 0 {
			od.Object = l.name
		}
		for _, n := range l.obj.Needed {
			d := Dep{Name: n}
			if t := sc.byName[n]; t != nil && t.obj.Kind != "" {
				d.Path = t.name
			}
			od.Needed = append(od.Needed, d)
		}
		out = append(out, od)
	}
	return out
}

// providerOf names the first object of the scope that defines
// name@version: the one a reference binds to.
func (sc *scope) providerOf(name, version string) string {
	hash := elfx.GNUHashOf(name)
	for _, l := range sc.list {
		if l.obj.providesHash(name, version, hash) {
			return l.name
		}
	}
	return ""
}
