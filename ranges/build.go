package ranges

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/ranges/table"
	"github.com/abifloor/abifloor/symver"
)

// Input is where one version's ABI comes from: an ABI file (ABI JSON or
// ELF), a header tree in a directory, or a revision of a git repository.
type Input struct {
	Version string
	File    string // ABI JSON or ELF
	Dir     string // header tree
	Repo    string // git repository (with Rev)
	Rev     string // tag or commit
}

func (in Input) String() string {
	switch {
	case in.File != "":
		return in.File
	case in.Dir != "":
		return in.Dir
	}
	return in.Repo + "@" + in.Rev
}

// Result is the outcome for one input.
type Result struct {
	Version string
	ABI     *abi.ABI
	Cached  bool // read from the cache or shared with an identical input
	Err     error
	// Warning says the cache entry for this input was corrupt and was
	// rebuilt.
	Warning string
	// Note says the ABI could not be written to the cache, or that the
	// compiler ran without Landlock; the result is still good.
	Note string

	fp string // ABI's fingerprint, when the build computed it
}

// Builder computes one ABI per input, in parallel, with a cache.
type Builder struct {
	Options Options
	// Cache holds the ABIs built, keyed by everything they depend on
	// (package cache: locked, verified, shared by concurrent processes).
	// When nil, CacheDir, if set, is opened as one; neither disables the
	// cache.
	Cache    *cache.Cache
	CacheDir string
	// Jobs is the number of versions built at once; 0 means one per CPU.
	Jobs int
	// Progress, if set, is called after each input with the count done.
	Progress func(done, total int)

	ccOnce sync.Once
	ccID   string

	compiled atomic.Bool  // a version's headers went to the compiler
	compiles atomic.Int64 // how many times (tests and benchmarks read it)

	storeOnce sync.Once
	cache     *cache.Cache
	cacheErr  error

	objOnce sync.Once
	objs    *objects // the git blobs unpacked for this build (objects.go)
	objsErr error

	mu     sync.Mutex
	abis   map[string]*abi.ABI // fingerprint → the build's one copy (intern)
	views  map[string][]*view  // compiled git versions by their paths (reuse.go)
	calls  map[string]*call
	trees  map[string]treeIDs // repo NUL rev → tree ids of every git input, read before the workers start
	hashes map[string]string  // path → sha256 of the files read from outside the trees
}

// call shares the work of one cache key between inputs of one build: two
// tags with the same include trees compile once.
type call struct {
	done chan struct{}
	abi  *abi.ABI
	fp   string // abi's fingerprint
	err  error
}

// Build returns one result per input, in input order. It stops early, with
// ctx's error in the remaining results, when ctx is cancelled.
func (b *Builder) Build(ctx context.Context, inputs []Input) []Result {
	res := make([]Result, len(inputs))
	b.prefetch(ctx, inputs)
	jobs := b.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	progress := func() {
		if b.Progress != nil {
			mu.Lock()
			done++
			b.Progress(done, len(inputs))
			mu.Unlock()
		}
	}
	// An input whose key another worker is building is answered once
	// that build is done; its worker goes on with the next input, not
	// idle until then.
	type waiter struct {
		i int
		c *call
	}
	var waiting []waiter
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r, c := b.one(ctx, inputs[i])
				if c != nil {
					mu.Lock()
					waiting = append(waiting, waiter{i, c})
					mu.Unlock()
					continue
				}
				res[i] = r
				progress()
			}
		}()
	}
	for i := range inputs {
		if ctx.Err() != nil {
			res[i] = Result{Version: inputs[i].Version, Err: ctx.Err()}
			continue
		}
		work <- i
	}
	close(work)
	wg.Wait()
	for _, w := range waiting {
		// Every build was started by a worker, so all are done.
		<-w.c.done
		res[w.i] = Result{Version: inputs[w.i].Version, ABI: w.c.abi, Err: w.c.err, Cached: true, fp: w.c.fp}
		progress()
	}
	if b.objs != nil {
		b.objs.remove()
	}
	b.objOnce, b.objs, b.objsErr = sync.Once{}, nil, nil
	b.mu.Lock()
	b.views, b.abis = nil, nil
	b.mu.Unlock()
	b.noteUnconfined(inputs, res)
	return res
}

// noteUnconfined tells, once per build, that the compiler ran without
// Landlock: a header that computes an #include of a device or a FIFO
// outside the tree then costs memory or time up to the compiler's
// limits before the check after the compile refuses it.
func (b *Builder) noteUnconfined(inputs []Input, res []Result) {
	if !b.compiled.Load() {
		return
	}
	_, err := run.Confinement()
	if err == nil {
		return
	}
	for i, r := range res {
		if inputs[i].File == "" && !r.Cached {
			note := "the compiler ran unconfined (" + err.Error() + "): the files it read are checked after the compile only"
			if r.Note != "" {
				note = r.Note + "; " + note
			}
			res[i].Note = note
			return
		}
	}
}

// one builds one input, or returns the call of another input with the
// same key, still being built.
func (b *Builder) one(ctx context.Context, in Input) (r Result, pending *call) {
	r.Version = in.Version
	defer func() {
		if p := recover(); p != nil {
			r.ABI, r.Err = nil, fmt.Errorf("%s: internal error: %v", in, p)
		}
	}()
	if err := ctx.Err(); err != nil {
		r.Err = err
		return r, nil
	}
	if in.File != "" {
		r.ABI, r.Err = abiread.Load(ctx, in.File, abiread.Options{})
		return r, nil
	}
	if err := b.Options.Check(); err != nil {
		r.Err = err
		return r, nil
	}
	key, err := b.key(ctx, in)
	if err != nil {
		r.Err = err
		return r, nil
	}
	b.mu.Lock()
	if b.calls == nil {
		b.calls = map[string]*call{}
	}
	c, shared := b.calls[key]
	if !shared {
		c = &call{done: make(chan struct{})}
		b.calls[key] = c
	}
	b.mu.Unlock()
	if shared {
		select {
		case <-c.done:
		default:
			return r, c
		}
		r.ABI, r.Err, r.Cached, r.fp = c.abi, c.err, true, c.fp
		return r, nil
	}
	c.err = fmt.Errorf("%s: not built", in) // until extract says otherwise
	defer close(c.done)
	store, err := b.store()
	if err != nil {
		r.Note = err.Error()
	}
	if store == nil {
		c.abi, _, c.err = b.extract(ctx, in)
		c.abi, c.fp = b.intern(c.abi, "")
		r.ABI, r.Err, r.fp = c.abi, c.err, c.fp
		return r, nil
	}
	// One copy of the cache per call, so a refused entry is told to this
	// version's result.
	cc := *store
	cc.Warn = func(msg string) {
		r.Warning = fmt.Sprintf("cache entry %s is corrupt (%s): rebuilt", cc.Path(key), msg)
	}
	var built *abi.ABI
	var builtFP string
	var buildErr error
	fill := func(k string) func(tmp, final string) error {
		return func(tmp, _ string) error {
			a, outside, err := b.extract(ctx, in)
			if err != nil {
				buildErr = err
				return err
			}
			built = a
			builtFP, err = writeEntry(filepath.Join(tmp, entryName), k, a, b.hashDeps(outside))
			return err
		}
	}
	// get returns the ABI of k's entry and whether the files it depends on
	// are as they were; it builds the entry when there is none.
	var fp string // a's fingerprint, when get computed it
	get := func(k string) (*abi.ABI, []dep, bool, error) {
		built, buildErr, fp = nil, nil, ""
		dir, err := cc.Get(ctx, k, fill(k))
		switch {
		case buildErr != nil:
			return nil, nil, false, buildErr
		case err != nil:
			return nil, nil, false, err
		case built != nil:
			fp = builtFP
			return built, nil, true, nil
		}
		a, deps, afp, err := readEntry(filepath.Join(dir, entryName), k)
		if err != nil {
			r.Warning = fmt.Sprintf("cache entry %s is corrupt (%v): rebuilt", dir, err)
			return nil, nil, false, nil
		}
		r.Cached, fp = true, afp
		return a, deps, b.depsCurrent(deps), nil
	}
	a, deps, current, err := get(key)
	if err == nil && a != nil && !current {
		// A file from outside the tree changed since the entry was made:
		// the entry for the files as they are now is keyed by their
		// hashes too.
		r.Cached = false
		a, _, current, err = get(b.depsKey(key, deps))
	}
	if err == nil && (a == nil || !current) {
		// The entry cannot be trusted, or the list of files changed as
		// well: build without the cache.
		r.Cached, fp = false, ""
		a, _, err = b.extract(ctx, in)
	}
	if err != nil && buildErr == nil && ctx.Err() == nil && !isVersionError(err) {
		// The cache failed, not the version: build without it.
		r.Note, fp = err.Error(), ""
		a, _, err = b.extract(ctx, in)
	}
	if err == nil {
		a, fp = b.intern(a, fp)
	}
	c.abi, c.fp, c.err = a, fp, err
	r.ABI, r.Err, r.fp = a, err, fp
	return r, nil
}

// intern returns the one ABI of the build with a's fingerprint (fp, or
// computed when empty) and the fingerprint: versions with equal ABIs
// (NVIDIA's 144 tags have 20) hold one copy, not one per compile or
// cache entry, and the table does not hash each again.
func (b *Builder) intern(a *abi.ABI, fp string) (*abi.ABI, string) {
	if a == nil {
		return nil, ""
	}
	if fp == "" {
		fp = a.Fingerprint()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if have, ok := b.abis[fp]; ok {
		return have, fp
	}
	if b.abis == nil {
		b.abis = map[string]*abi.ABI{}
	}
	b.abis[fp] = a
	return a, fp
}

func isVersionError(err error) bool {
	var ve *VersionError
	return errors.As(err, &ve)
}

// store is the cache of ABIs: Cache, or one opened in CacheDir; nil when
// neither is set.
func (b *Builder) store() (*cache.Cache, error) {
	b.storeOnce.Do(func() {
		switch {
		case b.Cache != nil:
			b.cache = b.Cache
		case b.CacheDir != "":
			b.cache, b.cacheErr = cache.Open(b.CacheDir)
		}
	})
	return b.cache, b.cacheErr
}

// key identifies the ABI an input yields: the content of its include
// trees, the options and the compiler.
func (b *Builder) key(ctx context.Context, in Input) (string, error) {
	var ids []string
	var err error
	if in.Dir != "" {
		ids, err = dirIDs(in.Dir, b.includes())
	} else {
		t := b.trees[in.Repo+"\x00"+in.Rev]
		ids, err = t.ids, t.err
	}
	if err != nil {
		return "", err
	}
	b.ccOnce.Do(func() { b.ccID = compilerID(ctx, b.Options) })
	// Format 3: entries are built confined to the version's tree; one
	// built before may hold what a header read from outside.
	k, _ := json.Marshal(struct {
		Format  int
		IDs     []string
		Options Options
		CC      string
	}{3, ids, b.Options, b.ccID})
	s := sha256.Sum256(k)
	return hex.EncodeToString(s[:]), nil
}

// includes are the include paths relative to a version's root; none means
// the root.
func (b *Builder) includes() []string {
	if len(b.Options.Includes) == 0 {
		return []string{"."}
	}
	return b.Options.Includes
}

// compilerID is the path and --version output of the compiler abiread.Headers
// runs: a new compiler may lay types out differently, so it is part of
// every key.
func compilerID(ctx context.Context, o Options) string {
	cc, err := abiread.HeaderOptions{CC: o.CC, Arch: o.Arch}.Compiler()
	if err != nil {
		return err.Error() // extract fails with the same error
	}
	p, err := run.LookPath(cc)
	if err != nil {
		return "missing " + cc
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	out, err := run.Output(ctx, p, "--version")
	if err != nil {
		return p + "\nerror: " + err.Error()
	}
	return p + "\n" + string(out)
}

// prefetch reads the tree ids of every git input with one git process per
// repository, so a warm rebuild costs no process per version. When that
// process fails, every input of the repository has its error.
func (b *Builder) prefetch(ctx context.Context, inputs []Input) {
	revs := map[string][]string{}
	for _, in := range inputs {
		if in.Repo != "" {
			revs[in.Repo] = append(revs[in.Repo], in.Rev)
		}
	}
	b.trees = map[string]treeIDs{}
	for repo, rs := range revs {
		got, err := gitTreeIDs(ctx, repo, rs, b.includes())
		for _, rev := range rs {
			t := got[rev]
			if err != nil {
				t.err = err
			}
			b.trees[repo+"\x00"+rev] = t
		}
	}
}

// extract compiles the headers of one version.
func (b *Builder) extract(ctx context.Context, in Input) (*abi.ABI, []string, error) {
	root := in.Dir
	if in.Repo != "" {
		b.objOnce.Do(func() { b.objs, b.objsErr = newObjects() })
		if b.objsErr != nil {
			return nil, nil, b.objsErr
		}
		tmp, files, release, err := b.objs.export(ctx, in.Repo, b.trees[in.Repo+"\x00"+in.Rev])
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, err
		}
		defer release()
		// A --dir tree was checked as its key was made; an exported
		// one is checked here, each file's directives as they were
		// read from git.
		t, err := newTree(tmp, b.includes())
		if err == nil {
			t.known = b.objs.known
			err = t.check(b.includes(), nil)
		}
		if err != nil {
			return nil, nil, &VersionError{Version: in.Version, Msg: strings.ReplaceAll(err.Error(), tmp+"/", ""), Err: err}
		}
		root = tmp
		if err := noSpecial(root); err != nil {
			return nil, nil, &VersionError{Version: in.Version, Msg: strings.ReplaceAll(err.Error(), root+"/", ""), Err: err}
		}
		a, outside, ok, done := b.reuse(ctx, newView(files))
		if ok {
			return a, outside, nil
		}
		defer done(root, nil, nil, nil)
		a, outside, deps, err := b.compile(ctx, in, root)
		done(root, a, outside, deps)
		return a, outside, err
	}
	if err := noSpecial(root); err != nil {
		return nil, nil, &VersionError{Version: in.Version, Msg: strings.ReplaceAll(err.Error(), root+"/", ""), Err: err}
	}
	a, outside, _, err := b.compile(ctx, in, root)
	return a, outside, err
}

// compile compiles the headers of one version's tree at root, and returns
// its ABI, the files it read from outside the include trees and every
// file it read.
func (b *Builder) compile(ctx context.Context, in Input, root string) (*abi.ABI, []string, []string, error) {
	o := b.Options
	// Root: the compiler may read this tree and its system headers, and
	// its diagnostics are shown only from there (a header is a
	// stranger's; abi's confinement).
	opt := abiread.HeaderOptions{Headers: o.Headers, Types: o.Types, Opaque: o.Opaque, Consts: o.Consts, CC: o.CC, Arch: o.Arch, Absent: !o.Strict, Root: root}
	for _, inc := range b.includes() {
		opt.Includes = append(opt.Includes, filepath.Join(root, inc))
	}
	for _, d := range o.Defines {
		opt.Flags = append(opt.Flags, "-D"+d)
	}
	b.compiled.Store(true)
	b.compiles.Add(1)
	r, err := abiread.CompileHeaders(ctx, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		// The compiler names files in the temporary tree; say them as
		// paths of the repository.
		msg := err.Error()
		if in.Repo != "" {
			msg = strings.ReplaceAll(msg, root+"/", "")
		}
		return nil, nil, nil, &VersionError{Version: in.Version, Msg: msg, Err: err}
	}
	// Files read from outside the version's own tree (a wrapper header
	// elsewhere, the system's headers) are part of the cache entry: each
	// is checked before the entry is used.
	var covered []string // the include trees, which the key hashes
	for _, inc := range opt.Includes {
		if p, err := filepath.Abs(inc); err == nil {
			covered = append(covered, p+string(filepath.Separator))
		}
	}
	var outside []string
deps:
	for _, d := range r.Deps {
		p, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		for _, c := range covered {
			if strings.HasPrefix(p, c) {
				continue deps
			}
		}
		outside = append(outside, p)
	}
	return r.ABI, outside, r.Deps, nil
}

// VersionError is a version whose headers could not be read; Err is
// abi's error (*abiread.MissingError, *abiread.ConflictError, ...).
type VersionError struct {
	Version string
	Msg     string
	Err     error
}

func (e *VersionError) Error() string { return e.Msg }
func (e *VersionError) Unwrap() error { return e.Err }

// SortInputs orders inputs by version.
func SortInputs(ins []Input) {
	sort.SliceStable(ins, func(i, j int) bool { return symver.Compare(ins[i].Version, ins[j].Version) < 0 })
}

// NewTable builds the table of results, leaving out the failed ones
// (marked failed), with the options o recorded.
func NewTable(o Options, rs []Result) (*table.Table, error) {
	var vs []Version
	var failed []string
	for _, r := range rs {
		if r.Err == nil && r.ABI != nil {
			vs = append(vs, Version{Name: r.Version, ABI: r.ABI, Fingerprint: r.fp})
		} else {
			failed = append(failed, r.Version)
		}
	}
	t, err := New(o.Types, vs)
	if err != nil {
		return nil, err
	}
	if err := t.MarkFailed(failed...); err != nil {
		return nil, err
	}
	if len(o.Headers) > 0 {
		oc := table.Options(o)
		t.Options = &oc
	}
	return t, nil
}

// CheckInputs reports an unparsable version or one given twice.
func CheckInputs(ins []Input) error {
	for _, in := range ins {
		if err := symver.Check(in.Version); err != nil {
			return fmt.Errorf("%s: %v", in, err)
		}
	}
	s := append([]Input(nil), ins...)
	SortInputs(s)
	for i := 1; i < len(s); i++ {
		if symver.Compare(s[i-1].Version, s[i].Version) == 0 {
			return fmt.Errorf("version %s given twice (%s and %s)", s[i].Version, s[i-1], s[i])
		}
	}
	return nil
}

// TagsError is a tag pattern that does not compile (Repo empty), matches
// a tag that is not a version (Tag set) or matches nothing. It names no
// flag: the command adds its own.
type TagsError struct {
	Repo, Pattern, Tag string
	Err                error
}

func (e *TagsError) Error() string {
	switch {
	case e.Repo == "":
		return fmt.Sprintf("tag pattern '%s': %v", e.Pattern, e.Err)
	case e.Tag != "":
		return fmt.Sprintf("%s: tag %s matches '%s' but is not a version: %v", e.Repo, e.Tag, e.Pattern, e.Err)
	}
	return fmt.Sprintf("%s: no tag matches '%s'", e.Repo, e.Pattern)
}

func (e *TagsError) Unwrap() error { return e.Err }
