package bind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/limits"
)

// objects is the run-wide cache of parsed files, safe for concurrent use.
// Paths inside the image map to a file identity (device and inode) so a
// library reached through two paths (/lib and /usr/lib on a merged-/usr
// system) is parsed once and loaded once, as ld.so does.
type objects struct {
	mu     sync.Mutex
	byPath map[string]*pathEntry
	byKey  map[fileKey]*object
	parsed int // objects parsed, for tests and benchmarks
}

type pathEntry struct {
	once sync.Once
	obj  *object
	err  error
}

// get returns the object at p, opened by open the first time p is asked
// for: links are resolved and the file opened once per path per run.
func (c *objects) get(p string, open func() (openFile, error)) (*object, error) {
	c.mu.Lock()
	e := c.byPath[p]
	if e == nil {
		e = &pathEntry{}
		c.byPath[p] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		in, err := open()
		if err != nil {
			e.err = err
			return
		}
		defer in.close()
		e.obj, e.err = c.parse(in)
	})
	return e.obj, e.err
}

// parse returns the object of the open file in, parsing it only when no
// other path to the same file was parsed before.
func (c *objects) parse(in openFile) (*object, error) {
	key := in.key
	c.mu.Lock()
	o := c.byKey[key]
	c.mu.Unlock()
	if o != nil {
		return o, nil
	}
	o, err := parseInput(in)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.byKey[o.key]; prev != nil {
		return prev, nil // parsed concurrently through another path
	}
	c.byKey[o.key] = o
	c.parsed++
	return o, nil
}

// host maps a path inside the image to a path on this machine: with a
// sysroot, every symbolic link on the way is resolved inside the root (an
// absolute target is taken relative to it, and ".." stops at it), so
// nothing outside the image is ever read. A path that cannot be resolved
// (a missing directory, a loop) maps to an error, never to a guess.
func (a *Auditor) host(p string) (string, error) {
	if a.sysroot == "" {
		if a.cross != "" && filepath.IsAbs(p) {
			// Under the prefix first, kept inside it as a root is.
			if q, err := resolveFS(a.fsys, a.cross, p); err == nil {
				if _, err := os.Lstat(q); err == nil {
					return q, nil
				}
			}
		}
		return p, nil
	}
	return resolveFS(a.fsys, a.sysroot, p)
}

// maxLinks is how many symbolic links one resolution follows, as Linux's
// MAXSYMLINKS.
const maxLinks = limits.Symlinks

// resolveIn resolves p (absolute, inside the image) under root, following
// links as the image's own kernel would see them with root as "/": a link
// to an absolute path starts again at root, ".." never climbs above root,
// and a path through a missing directory or through a file does not exist
// (the kernel's ENOENT and ENOTDIR; resolving the rest lexically is how a
// link to "missing/../../../etc" once escaped). Only the last component may
// be missing. The result is root joined with a path of real names, none
// of them "..", so it cannot leave root.
func resolveIn(root, p string) (string, error) { return resolveFS(hostFS{}, root, p) }

// resolveFS is resolveIn on the file system fsys.
func resolveFS(fsys fileSystem, root, p string) (string, error) {
	todo := strings.Split(p, "/")
	var done []string
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		cur := filepath.Join(root, filepath.Join(append(done, c)...))
		mode, _, err := fsys.lstat(cur)
		if err != nil {
			if !moreNames(todo) {
				return cur, nil // the caller's open reports it missing
			}
			return "", &fs.PathError{Op: "resolve", Path: p, Err: err}
		}
		if mode&fs.ModeSymlink == 0 {
			if !mode.IsDir() && moreNames(todo) {
				return "", &fs.PathError{Op: "resolve", Path: p, Err: syscall.ENOTDIR}
			}
			done = append(done, c)
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: syscall.ELOOP}
		}
		t, err := fsys.readlink(cur)
		if err != nil {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: err}
		}
		if t == "" {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: syscall.ENOENT}
		}
		if strings.HasPrefix(t, "/") {
			done = nil
		}
		todo = append(strings.Split(t, "/"), todo...)
	}
	return filepath.Join(root, filepath.Join(done...)), nil
}

// moreNames reports whether components remain that must be looked up
// below the current one ("a/" and "a/." still need a to be a directory).
func moreNames(todo []string) bool {
	for _, c := range todo {
		if c != "" {
			return true
		}
	}
	return false
}

// loaded is one object in a binary's load order.
type loaded struct {
	obj    *object
	name   string      // the path it was found at, inside the image
	origin string      // $ORIGIN of the object
	loader *loaded     // the object whose DT_NEEDED brought it in
	search *searchList // searchPath, once built
	rpaths *searchList // the RPATHs of it and its loaders, once built
}

// searchList is a search path as the directories that exist on it, each
// once, interned per run: two objects with the same list share it, so a
// search is known by the list and the name, whatever chain of loaders
// built the list.
type searchList struct {
	dirs []*dirEntry
}

// findKey is what the result of a search depends on: the name (tokens
// expanded), the directories searched before the cache, the machine,
// class and byte order wanted, and whether the cache and default
// directories are skipped (DF_1_NODEFLIB). A name with a slash is opened
// as it is: its list is nil.
type findKey struct {
	name  string
	list  *searchList
	mach  elf.Machine
	class elf.Class
	data  elf.Data
	nodef bool
}

// findEntry is the result of one search, shared by every object of every
// load that asks it again.
type findEntry struct {
	once sync.Once
	path string
	dir  string // path.Dir(path): the found object's $ORIGIN
	obj  *object
	err  error
}

// find searches for a DT_NEEDED name of l as ld.so's _dl_map_object does,
// returning the path inside the image and the object. Candidates of another
// machine or class, and files that are not ELF libraries, are skipped; a
// failed search is a *NotFoundError that says what was skipped and why.
//
// Each search is made once per run: objects, directories and the cache do
// not change during a run, so the result depends only on the findKey, and
// a thousand libraries in one DT_NEEDED cycle cost a thousand searches,
// not one per library per binary that loads them.
func (a *Auditor) find(name string, l *loaded, want *object) (string, *object, error) {
	e := a.lookup(name, l, want)
	return e.path, e.obj, e.err
}

// lookup is find's search, shared: the caller must not change it.
func (a *Auditor) lookup(name string, l *loaded, want *object) *findEntry {
	if strings.Contains(name, "$") {
		// ld.so expands dynamic string tokens in DT_NEEDED too.
		e, ok := expandTokens(name, l.origin, libDir(l.obj, a.multiarch), platform(l.obj))
		if !ok {
			return &findEntry{err: &NotFoundError{Name: name}}
		}
		name = e
	}
	k := findKey{name: name}
	if want != nil {
		k.mach, k.class, k.data = want.Machine, want.Class, want.Data
	}
	if !strings.Contains(name, "/") {
		k.list, k.nodef = a.searchList(l), l.obj.NoDef
	}
	a.findMu.Lock()
	e := a.found[k]
	if e == nil {
		e = &findEntry{}
		a.found[k] = e
	}
	a.findMu.Unlock()
	e.once.Do(func() {
		a.searches.Add(1)
		e.path, e.obj, e.err = a.search(k, want)
		e.dir = path.Dir(e.path)
	})
	return e
}

// search is the search find makes once per key.
func (a *Auditor) search(k findKey, want *object) (string, *object, error) {
	name := k.name
	nf := &NotFoundError{Name: name}
	if k.list == nil {
		if o, _ := a.try(name, want, nf); o != nil {
			return name, o, nil
		}
		return "", nil, nf
	}
	if p, o, ok := a.probe(k.list.dirs, name, want, nf); ok || nf.Broken != "" {
		return p, o, errIfNil(o, nf)
	}
	if !k.nodef {
		if c := a.cache(); c != nil {
			if p := c.Lookup(name, want.Machine, want.Class); p != "" {
				if o, done := a.try(p, want, nf); done {
					return p, o, errIfNil(o, nf)
				}
			}
		}
		var dirs []*dirEntry
		for _, d := range defaultDirs(want, a.multiarch) {
			dirs = append(dirs, a.dir(d))
		}
		if p, o, ok := a.probe(dirs, name, want, nf); ok || nf.Broken != "" {
			return p, o, errIfNil(o, nf)
		}
	}
	return "", nil, nf
}

// searchList is searchPath, interned.
func (a *Auditor) searchList(l *loaded) *searchList {
	if l.search != nil {
		return l.search
	}
	var chain []*dirEntry
	if !l.obj.HasRun {
		chain = a.rpathChain(l).dirs
	}
	var run []*dirEntry
	if len(l.obj.Runpath) > 0 {
		run = a.dirsOf(a.expand(l.obj.Runpath, l))
	}
	lp := a.libPathDirs()
	switch {
	case len(lp) == 0 && len(run) == 0 && !l.obj.HasRun:
		l.search = l.rpaths // deduplicated already
	case len(lp) == 0 && len(run) == 0:
		l.search = a.empty
	default:
		l.search = a.intern(dedupDirs(chain, lp, run))
	}
	return l.search
}

// rpathChain is the RPATH part of l's search path: l's own RPATH, then
// its loader's chain, each directory once. It is built from the loader's,
// so a chain a thousand objects deep costs once per object, not once per
// object per level.
func (a *Auditor) rpathChain(l *loaded) *searchList {
	if l.rpaths != nil {
		return l.rpaths
	}
	if l.loader == nil || l.loader.rpaths != nil { // the usual case, in load order
		l.rpaths = a.withRpath(l, l.loader)
		return l.rpaths
	}
	var todo []*loaded
	for p := l; p != nil && p.rpaths == nil; p = p.loader {
		todo = append(todo, p)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		todo[i].rpaths = a.withRpath(todo[i], todo[i].loader)
	}
	return l.rpaths
}

// withRpath is l's RPATH, then the chain of its loader, whose chain is
// built.
func (a *Auditor) withRpath(l, loader *loaded) *searchList {
	up := a.empty
	if loader != nil {
		up = loader.rpaths
	}
	if len(l.obj.Rpath) == 0 {
		return up
	}
	if own := a.dirsOf(a.expand(l.obj.Rpath, l)); len(own) > 0 && !isPrefix(own, up.dirs) {
		return a.intern(dedupDirs(own, up.dirs))
	}
	return up
}

// isPrefix reports whether the directories of own, each once, begin
// list: then own followed by list, each once, is list.
func isPrefix(own, list []*dirEntry) bool {
	own = dedupDirs(own)
	if len(own) > len(list) {
		return false
	}
	for i, d := range own {
		if list[i] != d {
			return false
		}
	}
	return true
}

// dedupDirs concatenates the lists, keeping the first of each directory.
func dedupDirs(lists ...[]*dirEntry) []*dirEntry {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]*dirEntry, 0, n)
	seen := make(map[*dirEntry]bool, n)
	for _, l := range lists {
		for _, d := range l {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// dirsOf is the directories named by ds that exist, in order: an empty
// entry means the working directory; one too long for a file name below
// PATH_MAX can hold nothing.
func (a *Auditor) dirsOf(ds []string) []*dirEntry {
	var out []*dirEntry
	for _, d := range ds {
		if d == "" {
			d = "."
		}
		if len(d) >= pathMax {
			continue
		}
		if e := a.dir(d); !e.missing {
			out = append(out, e)
		}
	}
	return out
}

// libPathDirs is LD_LIBRARY_PATH's directories, once per run.
func (a *Auditor) libPathDirs() []*dirEntry {
	a.libPathOnce.Do(func() { a.libPathList = dedupDirs(a.dirsOf(a.libPath)) })
	return a.libPathList
}

// intern returns the one searchList of these directories.
func (a *Auditor) intern(dirs []*dirEntry) *searchList {
	b := make([]byte, 0, 4*len(dirs))
	for _, d := range dirs {
		b = binary.AppendUvarint(b, uint64(d.id))
	}
	a.findMu.Lock()
	defer a.findMu.Unlock()
	if sl := a.lists[string(b)]; sl != nil {
		return sl
	}
	sl := &searchList{dirs: dirs}
	a.lists[string(b)] = sl
	return sl
}

// pathMax is Linux's PATH_MAX: open(2) refuses a longer path with
// ENAMETOOLONG, so ld.so finds nothing in a directory whose name is that
// long, and neither does the search here.
const pathMax = limits.PathMax

// maxListing is the most names a directory listing holds; a larger
// directory is probed name by name.
const maxListing = limits.Listing

// dirEntry is what a search knows of one directory, learnt once per run
// (ld.so keeps the same per directory, its r_search_path_elem status):
// whether it exists, and on this machine, the names in it. A search
// through a hundred missing directories for a thousand names then costs a
// hundred lookups of the directory, not a hundred thousand of files.
type dirEntry struct {
	name    string // inside the image
	id      int    // its number in the run, to intern search lists
	once    sync.Once
	missing bool
	host    string          // the directory on this machine (or in the image), links resolved
	names   map[string]bool // nil: not listed, each name is looked up
}

// dir returns the entry of the directory d (inside the image).
func (a *Auditor) dir(d string) *dirEntry {
	a.dirMu.Lock()
	e := a.dirs[d]
	if e == nil {
		e = &dirEntry{name: d, id: len(a.dirs)}
		a.dirs[d] = e
	}
	a.dirMu.Unlock()
	e.once.Do(func() {
		h, err := a.host(d)
		if err != nil {
			e.missing = true
			return
		}
		if mode, _, err := a.fsys.stat(h); err != nil || !mode.IsDir() {
			e.missing = true
			return
		}
		e.host = h
		if _, ok := a.fsys.(hostFS); ok {
			e.names = listDir(h)
		}
	})
	return e
}

// listDir returns the names in the directory h of this machine, or nil
// when it cannot be read or holds more than maxListing names.
func listDir(h string) map[string]bool {
	f, err := os.Open(h)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(maxListing + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(names) > maxListing {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// may reports whether the directory may hold name: false when the
// directory is missing or its listing lacks the name.
func (e *dirEntry) may(fsys fileSystem, name string) bool {
	switch {
	case e.missing:
		return false
	case e.names != nil:
		return e.names[name]
	}
	_, _, err := fsys.lstat(path.Join(e.host, name))
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// errIfNil is the search's error when it found nothing.
func errIfNil(o *object, nf *NotFoundError) error {
	if o == nil {
		return nf
	}
	return nil
}

// NotFoundError is a library no search found. Skipped lists the
// candidates that exist but were passed over, with why, which ld.so
// keeps to itself. Broken is set when a candidate ld.so cannot pass over
// (not ELF, too short, malformed) ended the search, as it ends the load:
// ld.so's words for it, "/x/libfoo.so: file too short".
type NotFoundError struct {
	Name    string
	Skipped []string // "/x/libfoo.so: wrong architecture aarch64"
	// More counts the candidates passed over beyond the first
	// maxSkipped, which Skipped does not list.
	More   int
	Broken string
}

// maxSkipped is how many passed-over candidates one search lists; the
// rest are counted. maxMessage is the longest one message may be, about
// a PATH_MAX path and its reason.
const (
	maxSkipped = limits.Candidates
	maxMessage = pathMax + 256
)

// clip shortens s to maxMessage bytes, saying how much it left out.
func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && s[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

func (e *NotFoundError) Error() string {
	if e.Broken != "" {
		return e.Broken
	}
	msg := e.Name + ": cannot open shared object file"
	if len(e.Skipped) == 0 {
		return msg + ": No such file or directory"
	}
	msg += ": skipped " + strings.Join(e.Skipped, "; skipped ")
	if e.More > 0 {
		msg += fmt.Sprintf(" (and %d more)", e.More)
	}
	return msg
}

func (a *Auditor) probe(dirs []*dirEntry, name string, want *object, nf *NotFoundError) (string, *object, bool) {
	for _, d := range dirs {
		if len(d.name)+1+len(name) >= pathMax || !d.may(a.fsys, name) {
			continue
		}
		p := path.Join(d.name, name)
		if o, done := a.try(p, want, nf); done && o != nil {
			return p, o, true
		} else if done {
			return "", nil, false
		}
	}
	return "", nil, false
}

// try opens the candidate p as ld.so's open_verify does. It is done when
// p is taken (o set) or ends the search (nf.Broken set); a candidate of
// another machine or class, or one that cannot be opened, is passed over
// (added to nf.Skipped unless absent).
func (a *Auditor) try(p string, want *object, nf *NotFoundError) (o *object, done bool) {
	o, err := a.open(p, want)
	var fe *elfx.FormatError
	switch {
	case err == nil:
		return o, true
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, false
	case errors.Is(err, elfx.ErrNotELF) || errors.As(err, &fe):
		nf.Broken = p + ": " + a.brokenReason(p, want, err)
		return nil, true
	}
	if len(nf.Skipped) < maxSkipped {
		nf.Skipped = append(nf.Skipped, clip(p+": "+elfx.Message(a.hostName(p), err)))
	} else {
		nf.More++
	}
	return nil, false
}

// hostName is host for messages about p, which was opened (or tried):
// the path on this machine, or "" when p does not resolve (never p
// itself, which would name a file of this machine, not of the image).
func (a *Auditor) hostName(p string) string {
	if h, err := a.host(p); err == nil {
		return h
	}
	return ""
}

// brokenReason says why ld.so refuses the file at p, in its words where
// its check is known and in elfx's otherwise.
func (a *Auditor) brokenReason(p string, want *object, err error) string {
	ehdr := int64(52)
	if want == nil || want.Class == elf.ELFCLASS64 {
		ehdr = 64
	}
	if _, size, e := a.fsys.stat(a.hostName(p)); e == nil && size < ehdr {
		return "file too short"
	}
	if errors.Is(err, elfx.ErrNotELF) {
		return "invalid ELF header"
	}
	return elfx.Message(a.hostName(p), err)
}

// open loads the object at p (inside the image) when it is a library of
// want's machine, class and byte order (any, when want is nil).
func (a *Auditor) open(p string, want *object) (*object, error) {
	o, err := a.objs.get(p, func() (openFile, error) {
		h, err := a.host(p)
		if err != nil {
			return openFile{}, err
		}
		return a.fsys.open(h, nil, make([]byte, headSize))
	})
	if err != nil {
		return nil, err
	}
	if o.Kind == elfx.DebugInfo {
		return nil, errors.New("a separate debug file, with no code")
	}
	if want != nil && (o.Machine != want.Machine || o.Class != want.Class || o.Data != want.Data) {
		return nil, fmt.Errorf("wrong architecture %s", o.Arch)
	}
	return o, nil
}

// expand substitutes the dynamic string tokens of a search path. A path
// whose token cannot be expanded is dropped, as ld.so does.
func (a *Auditor) expand(dirs []string, l *loaded) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if e, ok := expandTokens(d, l.origin, libDir(l.obj, a.multiarch), platform(l.obj)); ok {
			out = append(out, e)
		}
	}
	return out
}

// expandTokens replaces $ORIGIN, $LIB and $PLATFORM (also written with
// braces) in s.
func expandTokens(s, origin, lib, plat string) (string, bool) {
	if !strings.Contains(s, "$") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		rest := s[i+1:]
		matched := false
		for _, t := range []struct{ name, val string }{{"ORIGIN", origin}, {"LIB", lib}, {"PLATFORM", plat}} {
			n := 0
			switch {
			case strings.HasPrefix(rest, "{"+t.name+"}"):
				n = len(t.name) + 2
			case strings.HasPrefix(rest, t.name) && (len(rest) == len(t.name) || !isNameByte(rest[len(t.name)])):
				n = len(t.name)
			}
			if n > 0 {
				if t.val == "" {
					return "", false
				}
				b.WriteString(t.val)
				i += 1 + n
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), true
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// libDir is what $LIB expands to: the multiarch directory on Debian-style
// images, lib64 or lib elsewhere.
func libDir(o *object, multiarch bool) string {
	if t := elfx.Multiarch(o.Machine, o.Class, o.Data); multiarch && t != "" {
		return "lib/" + t
	}
	if o.Class == elf.ELFCLASS64 && o.Arch != "aarch64" && o.Arch != "riscv64" {
		return "lib64"
	}
	return "lib"
}

// platform is AT_PLATFORM, what $PLATFORM expands to.
func platform(o *object) string {
	switch o.Arch {
	case "i386":
		return "i686"
	case "arm":
		return "v7l"
	}
	return o.Arch
}

// defaultDirs is ld.so's built-in "system search path" for the machine:
// the multiarch directories on Debian-style images, then the lib64 (or
// lib) directories other distributions use. Candidates of another class in
// the extra directories are skipped like any other mismatch.
func defaultDirs(o *object, multiarch bool) []string {
	var dirs []string
	if t := elfx.Multiarch(o.Machine, o.Class, o.Data); multiarch && t != "" {
		dirs = append(dirs, "/lib/"+t, "/usr/lib/"+t)
	}
	if o.Class == elf.ELFCLASS64 {
		dirs = append(dirs, "/lib64", "/usr/lib64")
	} else if o.Arch == "x32" {
		dirs = append(dirs, "/libx32", "/usr/libx32")
	}
	return append(dirs, "/lib", "/usr/lib")
}

// cache reads the image's ld.so.cache once (or the file Options.CacheFile
// names) and returns it, nil when there is none. A missing cache is normal
// (the search goes on without it); a malformed one is an error.
func (a *Auditor) cache() *ldCache {
	a.cacheOnce.Do(func() {
		p := a.cachePath
		var err error
		if p == "" {
			p, err = a.host("/etc/ld.so.cache")
		}
		var b []byte
		if err == nil {
			b, err = readBounded(a.fsys, p, limits.LDCache)
		}
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				a.cacheErr = err
			}
			return
		}
		a.ldcache, a.cacheErr = parseCache(b)
		if a.cacheErr != nil {
			a.cacheErr = &input.FileError{Path: p, Err: a.cacheErr}
		}
	})
	return a.ldcache
}

// readBounded reads a whole small file, refusing anything larger than max.
func readBounded(fsys fileSystem, p string, max int64) ([]byte, error) {
	in, err := fsys.open(p, nil, nil)
	if err != nil {
		return nil, err
	}
	defer in.close()
	if in.size > max {
		return nil, &input.FileError{Path: p, Err: fmt.Errorf("larger than %d bytes", max)}
	}
	b := make([]byte, in.size)
	if _, err := in.r.ReadAt(b, 0); err != nil {
		return nil, &os.PathError{Op: "read", Path: p, Err: err}
	}
	return b, nil
}

// ArgPath maps a path named on the command line with --sysroot root (an
// absolute, clean directory) to the file on this machine, as "chroot root
// ldd arg" would see it: an absolute arg is inside the image, every link
// on the way resolved inside it (an escape stays inside). A relative arg
// is taken relative to the image root, except one that, taken from the
// working directory, already lies inside the root ("img/usr/bin/app"),
// which is used as that path inside the image.
func ArgPath(root, arg string) (string, error) {
	if !filepath.IsAbs(arg) {
		if abs, err := filepath.Abs(arg); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				arg = rel
			}
		}
		arg = "/" + arg
	}
	return resolveIn(root, arg)
}
