package ranges

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/abifloor/abifloor/internal/input"

	"github.com/abifloor/abifloor/abi"
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

	compiled atomic.Bool // a version's headers went to the compiler

	storeOnce sync.Once
	cache     *cache.Cache
	cacheErr  error

	mu     sync.Mutex
	calls  map[string]*call
	trees  map[string]treeIDs // repo NUL rev → tree ids of every git input, read before the workers start
	hashes map[string]string  // path → sha256 of the files read from outside the trees
}

// call shares the work of one cache key between inputs of one build: two
// tags with the same include trees compile once.
type call struct {
	done chan struct{}
	abi  *abi.ABI
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
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				res[i] = b.one(ctx, inputs[i])
				if b.Progress != nil {
					mu.Lock()
					done++
					b.Progress(done, len(inputs))
					mu.Unlock()
				}
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

func (b *Builder) one(ctx context.Context, in Input) (r Result) {
	r.Version = in.Version
	defer func() {
		if p := recover(); p != nil {
			r.ABI, r.Err = nil, fmt.Errorf("%s: internal error: %v", in, p)
		}
	}()
	if err := ctx.Err(); err != nil {
		r.Err = err
		return r
	}
	if in.File != "" {
		r.ABI, r.Err = abi.Load(ctx, in.File, abi.Options{})
		return r
	}
	if err := b.Options.Check(); err != nil {
		r.Err = err
		return r
	}
	key, err := b.key(ctx, in)
	if err != nil {
		r.Err = err
		return r
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
		case <-ctx.Done():
			r.Err = ctx.Err()
			return r
		}
		r.ABI, r.Err, r.Cached = c.abi, c.err, true
		return r
	}
	c.err = fmt.Errorf("%s: not built", in) // until extract says otherwise
	defer close(c.done)
	store, err := b.store()
	if err != nil {
		r.Note = err.Error()
	}
	if store == nil {
		c.abi, _, c.err = b.extract(ctx, in)
		r.ABI, r.Err = c.abi, c.err
		return r
	}
	// One copy of the cache per call, so a refused entry is told to this
	// version's result.
	cc := *store
	cc.Warn = func(msg string) {
		r.Warning = fmt.Sprintf("cache entry %s is corrupt (%s): rebuilt", cc.Path(key), msg)
	}
	var built *abi.ABI
	var buildErr error
	fill := func(k string) func(tmp, final string) error {
		return func(tmp, _ string) error {
			a, outside, err := b.extract(ctx, in)
			if err != nil {
				buildErr = err
				return err
			}
			built = a
			return writeEntry(filepath.Join(tmp, entryName), k, a, b.hashDeps(outside))
		}
	}
	// get returns the ABI of k's entry and whether the files it depends on
	// are as they were; it builds the entry when there is none.
	get := func(k string) (*abi.ABI, []dep, bool, error) {
		built, buildErr = nil, nil
		dir, err := cc.Get(ctx, k, fill(k))
		switch {
		case buildErr != nil:
			return nil, nil, false, buildErr
		case err != nil:
			return nil, nil, false, err
		case built != nil:
			return built, nil, true, nil
		}
		a, deps, why := readEntry(filepath.Join(dir, entryName), k)
		if a == nil {
			r.Warning = fmt.Sprintf("cache entry %s is corrupt (%s): rebuilt", dir, why)
			return nil, nil, false, nil
		}
		r.Cached = true
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
		r.Cached = false
		a, _, err = b.extract(ctx, in)
	}
	if err != nil && buildErr == nil && ctx.Err() == nil && !isVersionError(err) {
		// The cache failed, not the version: build without it.
		r.Note = err.Error()
		a, _, err = b.extract(ctx, in)
	}
	c.abi, c.err = a, err
	r.ABI, r.Err = a, err
	return r
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

// dep is a file the compiler read from outside the version's tree, and
// the hash of its content then ("" when it could not be read).
type dep struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// hashFile hashes one dependency, once per build.
func (b *Builder) hashFile(p string) string {
	b.mu.Lock()
	if h, ok := b.hashes[p]; ok {
		b.mu.Unlock()
		return h
	}
	b.mu.Unlock()
	h := ""
	if in, err := input.Open(p, nil, nil); err == nil {
		fh := sha256.New()
		if _, err := io.Copy(fh, io.NewSectionReader(in.FD, 0, in.Size)); err == nil {
			h = hex.EncodeToString(fh.Sum(nil))
		}
		in.Close()
	}
	b.mu.Lock()
	if b.hashes == nil {
		b.hashes = map[string]string{}
	}
	b.hashes[p] = h
	b.mu.Unlock()
	return h
}

func (b *Builder) hashDeps(paths []string) []dep {
	out := make([]dep, 0, len(paths))
	for _, p := range paths {
		out = append(out, dep{p, b.hashFile(p)})
	}
	return out
}

func (b *Builder) depsCurrent(deps []dep) bool {
	for _, d := range deps {
		if b.hashFile(d.Path) != d.SHA256 {
			return false
		}
	}
	return true
}

// depsKey is the key of key's entry for the dependencies as they are now.
func (b *Builder) depsKey(key string, deps []dep) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", key)
	for _, d := range deps {
		fmt.Fprintf(h, "%s %s\n", d.Path, b.hashFile(d.Path))
	}
	return hex.EncodeToString(h.Sum(nil))
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

// compilerID is the path and --version output of the compiler abi.Headers
// runs: a new compiler may lay types out differently, so it is part of
// every key.
func compilerID(ctx context.Context, o Options) string {
	cc, err := abi.HeaderOptions{CC: o.CC, Arch: o.Arch}.Compiler()
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

// dirIDs hashes every file under each include directory of dir, after
// checking the tree (tree.go): a link out of it, a FIFO or device under
// an include directory, or an #include that climbs out is an error.
func dirIDs(dir string, incs []string) ([]string, error) {
	t, err := newTree(dir, incs)
	if err != nil {
		return nil, err
	}
	var ids []string
	if err := t.check(incs, &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// gitTreeIDs returns the object id of each include path at each rev, with
// one git process for all of them and no checkout: git's tree ids are
// already hashes of the content. A rev that lacks a path has an error.
func gitTreeIDs(ctx context.Context, repo string, revs, incs []string) (map[string]treeIDs, error) {
	// Per rev: the commit itself (so a missing tag is named as such), then
	// each include path.
	per := len(incs) + 1
	var q bytes.Buffer
	for _, rev := range revs {
		fmt.Fprintf(&q, "%s^{commit}\n", rev)
		for _, inc := range incs {
			p := path.Clean(filepath.ToSlash(inc))
			if p == "." {
				p = ""
			}
			fmt.Fprintf(&q, "%s^{commit}:%s\n", rev, p)
		}
	}
	out, err := git(ctx, repo, &q, "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(revs)*per {
		return nil, fmt.Errorf("%s: git cat-file answered %d lines for %d names", repo, len(lines), len(revs)*per)
	}
	missing := func(l string) bool { return strings.HasSuffix(l, " missing") || strings.HasSuffix(l, " ambiguous") }
	res := make(map[string]treeIDs, len(revs))
	for i, rev := range revs {
		var t treeIDs
		if missing(lines[i*per]) {
			res[rev] = treeIDs{err: fmt.Errorf("%s: no tag or commit %s", repo, rev)}
			continue
		}
		for j, inc := range incs {
			l := lines[i*per+1+j]
			if missing(l) {
				t = treeIDs{err: fmt.Errorf("%s has no %s", rev, inc)}
				break
			}
			id, _, _ := strings.Cut(l, " ")
			t.ids = append(t.ids, inc+" "+id)
		}
		res[rev] = t
	}
	return res, nil
}

type treeIDs struct {
	ids []string
	err error
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

// git runs git in repo and returns its standard output; the error carries
// git's standard error.
func git(ctx context.Context, repo string, stdin io.Reader, args ...string) ([]byte, error) {
	gitPath, err := run.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	res, err := run.Cmd{Path: gitPath, Name: "git", Args: append([]string{"-C", repo}, args...), Stdin: stdin, MaxOutput: 256 << 20}.Run(ctx)
	if err != nil {
		var re *run.Error
		msg := err.Error()
		if errors.As(err, &re) && strings.TrimSpace(re.Stderr) != "" {
			msg = strings.TrimSpace(re.Stderr)
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return res.Stdout, nil
}

// ErrNoGit is returned when git is not on PATH.
var ErrNoGit = errors.New("git not found on PATH")

// extract compiles the headers of one version.
func (b *Builder) extract(ctx context.Context, in Input) (*abi.ABI, []string, error) {
	root := in.Dir
	if in.Repo != "" {
		tmp, err := os.MkdirTemp(exportRoot(), "abifloor-ranges-")
		if err != nil {
			return nil, nil, err
		}
		defer os.RemoveAll(tmp)
		if err := gitExport(ctx, in.Repo, in.Rev, b.includes(), tmp); err != nil {
			return nil, nil, err
		}
		// A --dir tree was checked as its key was made; an exported
		// one is checked here.
		t, err := newTree(tmp, b.includes())
		if err == nil {
			err = t.check(b.includes(), nil)
		}
		if err != nil {
			return nil, nil, &VersionError{Version: in.Version, Msg: strings.ReplaceAll(err.Error(), tmp+"/", ""), Err: err}
		}
		root = tmp
	}
	if err := noSpecial(root); err != nil {
		return nil, nil, &VersionError{Version: in.Version, Msg: strings.ReplaceAll(err.Error(), root+"/", ""), Err: err}
	}
	o := b.Options
	// Root: the compiler may read this tree and its system headers, and
	// its diagnostics are shown only from there (a header is a
	// stranger's; abi's confinement).
	opt := abi.HeaderOptions{Headers: o.Headers, Types: o.Types, Opaque: o.Opaque, Consts: o.Consts, CC: o.CC, Arch: o.Arch, Absent: !o.Strict, Root: root}
	for _, inc := range b.includes() {
		opt.Includes = append(opt.Includes, filepath.Join(root, inc))
	}
	for _, d := range o.Defines {
		opt.Flags = append(opt.Flags, "-D"+d)
	}
	b.compiled.Store(true)
	r, err := abi.CompileHeaders(ctx, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		// The compiler names files in the temporary tree; say them as
		// paths of the repository.
		msg := err.Error()
		if in.Repo != "" {
			msg = strings.ReplaceAll(msg, root+"/", "")
		}
		return nil, nil, &VersionError{Version: in.Version, Msg: msg, Err: err}
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
	return r.ABI, outside, nil
}

// VersionError is a version whose headers could not be read; Err is
// abi's error (*abi.MissingError, *abi.ConflictError, ...).
type VersionError struct {
	Version string
	Msg     string
	Err     error
}

func (e *VersionError) Error() string { return e.Msg }
func (e *VersionError) Unwrap() error { return e.Err }

// exportRoot is where a version's include paths are unpacked: $TMPDIR
// when the user set it, else /dev/shm when it is a writable directory (a
// tmpfs on Linux), else the system's temporary directory. Hundreds of
// headers written and removed per version cost 2.3 times more on a disk
// (ext4 with discard: 18 s against 8 s for 26 of NVIDIA's tags).
func exportRoot() string {
	if os.Getenv("TMPDIR") != "" {
		return ""
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && syscall.Access("/dev/shm", 2) == nil {
		return "/dev/shm"
	}
	return ""
}

// maxExport bounds what one version's include paths may unpack to.
const maxExport = 1 << 30

// gitExport writes the files under the include paths at rev into dir,
// straight from git's objects (git archive): no work tree is checked out.
func gitExport(ctx context.Context, repo, rev string, incs []string, dir string) error {
	gitPath, err := run.LookPath("git")
	if err != nil {
		return ErrNoGit
	}
	args := []string{"-C", repo, "archive", "--format=tar", rev + "^{commit}", "--"}
	for _, inc := range incs {
		args = append(args, path.Clean(filepath.ToSlash(inc)))
	}
	st, err := run.Cmd{Path: gitPath, Name: "git", Args: args}.Stream(ctx)
	if err != nil {
		return err
	}
	terr := untar(st, dir)
	io.Copy(io.Discard, st)
	if err := st.Wait(); err != nil {
		msg := err.Error()
		var re *run.Error
		if errors.As(err, &re) && strings.TrimSpace(re.Stderr) != "" {
			msg = strings.TrimSpace(re.Stderr)
		}
		return fmt.Errorf("git archive %s: %s", rev, msg)
	}
	return terr
}

// untar writes regular files, directories and symlinks of a tar stream
// under dir; names that would leave dir are refused, and so are names at
// or under a symlink the stream made (a crafted tree can hold a link and
// a file of one name), which would write wherever the link points.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	var total int64
	links := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading git archive: %w", err)
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("git archive: member %q leaves the tree", h.Name)
		}
		for q := name; q != "."; q = path.Dir(q) {
			if links[q] {
				return fmt.Errorf("git archive: member %q is at or under the symlink %s", h.Name, q)
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > maxExport {
				return fmt.Errorf("git archive: include paths larger than %d bytes", maxExport)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			// A link out of the tree would let the compiler read
			// there (an absolute one too: tar recreates it as is).
			t := h.Linkname
			if path.IsAbs(t) || t == "" {
				return fmt.Errorf("git archive: member %q is a link to %s, outside the tree", h.Name, t)
			}
			if j := path.Join(path.Dir(name), t); j == ".." || strings.HasPrefix(j, "../") {
				return fmt.Errorf("git archive: member %q is a link to %s, outside the tree", h.Name, t)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
			links[name] = true
		}
	}
}

// cacheEntry is one cached ABI. Fingerprint is checked against the ABI on
// every read, so a truncated or edited entry is rebuilt, never trusted.
type cacheEntry struct {
	Key         string   `json:"key"`
	Fingerprint string   `json:"fingerprint"`
	ABI         *abi.ABI `json:"abi"`
	// Deps are the files the compiler read from outside the version's
	// tree, with their hashes: the entry holds only while they match.
	Deps []dep `json:"deps"`
}

// maxEntry bounds a cache entry read back.
const maxEntry = 64 << 20

// entryName is the file of a cache entry's directory that holds the ABI.
const entryName = "abi.json"

// readEntry returns the ABI stored in an entry's file, or nil and why it
// is not sound. Package cache has checked the file against the entry's
// manifest; the fingerprint and key are checked again here.
func readEntry(p, key string) (*abi.ABI, []dep, string) {
	in, err := input.Open(p, nil, nil)
	if err != nil {
		return nil, nil, err.Error()
	}
	defer in.Close()
	if in.Size > maxEntry {
		return nil, nil, "too large"
	}
	data, err := io.ReadAll(io.NewSectionReader(in.FD, 0, maxEntry+1))
	if err != nil {
		return nil, nil, err.Error()
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, nil, err.Error()
	}
	if e.Key != key || e.ABI == nil {
		return nil, nil, "wrong key"
	}
	if fp := e.ABI.Fingerprint(); fp != e.Fingerprint {
		return nil, nil, "hash mismatch"
	}
	return e.ABI, e.Deps, ""
}

func writeEntry(p, key string, a *abi.ABI, deps []dep) error {
	data, err := json.Marshal(cacheEntry{Key: key, Fingerprint: a.Fingerprint(), ABI: a, Deps: deps})
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return os.WriteFile(p, data, 0o644)
}

// GitTags lists the tags of repo that match pattern as inputs, ordered by
// version. A matching tag that is not a version is an error, as is a
// pattern that matches nothing.
func GitTags(ctx context.Context, repo, pattern string) ([]Input, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, &TagsError{Pattern: pattern, Err: err}
	}
	out, err := git(ctx, repo, nil, "tag", "--list")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", repo, err)
	}
	var ins []Input
	for _, tag := range strings.Fields(string(out)) {
		if !re.MatchString(tag) {
			continue
		}
		if err := symver.Check(tag); err != nil {
			return nil, &TagsError{Repo: repo, Pattern: pattern, Tag: tag, Err: err}
		}
		ins = append(ins, Input{Version: tag, Repo: repo, Rev: tag})
	}
	if len(ins) == 0 {
		return nil, &TagsError{Repo: repo, Pattern: pattern}
	}
	SortInputs(ins)
	return ins, nil
}

// SortInputs orders inputs by version.
func SortInputs(ins []Input) {
	sort.SliceStable(ins, func(i, j int) bool { return symver.Compare(ins[i].Version, ins[j].Version) < 0 })
}

// NewTable builds the table of results, leaving out the failed ones
// (marked failed), with the options o recorded.
func NewTable(o Options, rs []Result) (*Table, error) {
	var vs []Version
	var failed []string
	for _, r := range rs {
		if r.Err == nil && r.ABI != nil {
			vs = append(vs, Version{Name: r.Version, ABI: r.ABI})
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
