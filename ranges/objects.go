package ranges

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A version of a git repository is unpacked from git's objects, not from
// a git archive of its include paths: NVIDIA's 144 tags hold 120,000
// files under the surface's include paths (2.9 GB) but only 3,063
// distinct blobs (131 MB). Each blob a build needs is read once (one git
// cat-file per version, for the blobs no version before it had), written
// once under a private directory, and hard-linked into the tree of every
// version that holds it; its #include directives are read as it is
// written, so the tree's check (tree.go) does not read it again. The files
// are the very objects the cache key names (the include paths' tree ids),
// as committed: no attribute of the tree rewrites them on the way.

// maxExport bounds what one version's include paths may unpack to.
const maxExport = 1 << 30

// maxLink bounds a symbolic link's target (PATH_MAX).
const maxLink = 4096

// objectsBudget is how many bytes of blobs no live tree holds may stay
// unpacked for the versions after; past it, the least recently used go
// (a container's /dev/shm is 64 MB).
const objectsBudget = 48 << 20

// objects is one build's unpacked git blobs and the trees made of them.
type objects struct {
	root string // private directory: objects/ and one directory per version
	dev  uint64 // root's file system: a file's inode names a blob only there

	fetch sync.Mutex // held while blobs are read: one cat-file at a time

	mu    sync.Mutex
	blobs map[string]*blob // blob id → its file, written
	byIno map[uint64]*blob
	lists map[string]*listing // tree id → its files
	size  int64               // bytes of blob files
	tick  int64
}

type blob struct {
	id   string
	file string
	size int64
	ino  uint64
	dirs []dir // the #include and #define directives (tree.go)
	pins int   // live trees that hold it
	used int64 // tick of its last use
}

type listing struct {
	once    sync.Once
	entries []lsEntry
	err     error
}

func newObjects() (*objects, error) {
	root, err := os.MkdirTemp(exportRoot(), "abifloor-ranges-")
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(root, "objects"), 0o700); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(root, &st); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &objects{root: root, dev: uint64(st.Dev), blobs: map[string]*blob{}, byIno: map[uint64]*blob{}, lists: map[string]*listing{}}, nil
}

func (o *objects) remove() { os.RemoveAll(o.root) }

// known returns the directives of a file of o's trees, from its metadata
// (tree.known): a regular file with the inode of a blob o wrote.
func (o *objects) known(fi fs.FileInfo) ([]dir, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || uint64(st.Dev) != o.dev || !fi.Mode().IsRegular() {
		return nil, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.byIno[uint64(st.Ino)]
	if !ok || b.size != fi.Size() {
		return nil, false
	}
	return b.dirs, true
}

// export unpacks the include paths of a version (t, from gitTreeIDs) into
// a new directory of o and returns it, with its files and a release to
// call once the version is done with it (it removes the tree).
func (o *objects) export(ctx context.Context, repo string, t treeIDs) (dir string, files []lsEntry, release func(), err error) {
	for _, obj := range t.objs {
		switch obj.kind {
		case "tree":
			l := o.list(ctx, repo, obj.id)
			if l.err != nil {
				return "", nil, nil, l.err
			}
			for _, e := range l.entries {
				if obj.path != "" {
					e.path = obj.path + "/" + e.path
				}
				files = append(files, e)
			}
		default:
			// An include path that is a file, a link or a submodule
			// itself: its mode is in its parent tree.
			e, err := parentEntry(ctx, repo, t.rev, obj)
			if err != nil {
				return "", nil, nil, err
			}
			files = append(files, e)
		}
	}
	var total int64
	for _, e := range files {
		if e.size > 0 {
			total += e.size
		}
	}
	if total > maxExport {
		return "", nil, nil, fmt.Errorf("%s: include paths larger than %d bytes", t.rev, maxExport)
	}
	if len(files) > maxTreeFiles {
		return "", nil, nil, fmt.Errorf("%s: more than %d files under the include paths", t.rev, maxTreeFiles)
	}
	pinned, err := o.pin(ctx, repo, files)
	if err != nil {
		return "", nil, nil, err
	}
	unpin := func() {
		o.mu.Lock()
		for _, b := range pinned {
			b.pins--
		}
		o.mu.Unlock()
		o.evict()
	}
	// files: each path from the repository's root
	dir, err = os.MkdirTemp(o.root, "v-")
	if err != nil {
		unpin()
		return "", nil, nil, err
	}
	release = func() {
		os.RemoveAll(dir)
		unpin()
	}
	if err := o.materialize(files, dir); err != nil {
		release()
		return "", nil, nil, err
	}
	return dir, files, release, nil
}

// list is the recursive listing of a tree, read once per build.
func (o *objects) list(ctx context.Context, repo, id string) *listing {
	o.mu.Lock()
	l, ok := o.lists[repo+"\x00"+id]
	if !ok {
		l = &listing{}
		o.lists[repo+"\x00"+id] = l
	}
	o.mu.Unlock()
	l.once.Do(func() {
		out, err := git(ctx, repo, nil, "ls-tree", "-r", "-z", "-l", id)
		if err != nil {
			l.err = fmt.Errorf("%s: %v", repo, err)
			return
		}
		l.entries, l.err = parseLsTree(out, true)
		if l.err != nil {
			l.err = fmt.Errorf("%s: tree %s: %v", repo, id, l.err)
		}
	})
	if ctx.Err() != nil && l.err != nil {
		// A cancelled listing is not the tree's answer.
		o.mu.Lock()
		if o.lists[repo+"\x00"+id] == l {
			delete(o.lists, repo+"\x00"+id)
		}
		o.mu.Unlock()
	}
	return l
}

// parentEntry is the entry of an include path that is not a tree, read
// from its parent tree at rev.
func parentEntry(ctx context.Context, repo, rev string, obj gitObject) (lsEntry, error) {
	parent, name := path.Split(obj.path)
	out, err := git(ctx, repo, nil, "ls-tree", "-z", "-l", rev+"^{commit}:"+strings.TrimSuffix(parent, "/"))
	if err != nil {
		return lsEntry{}, fmt.Errorf("%s: %v", repo, err)
	}
	es, err := parseLsTree(out, false)
	if err != nil {
		return lsEntry{}, fmt.Errorf("%s: %s: %v", repo, rev, err)
	}
	for _, e := range es {
		if e.path == name {
			if e.id != obj.id {
				return lsEntry{}, fmt.Errorf("%s: %s changed while it was read (%s is %s, was %s)", repo, rev, obj.path, e.id, obj.id)
			}
			e.path = obj.path
			return e, nil
		}
	}
	return lsEntry{}, fmt.Errorf("%s has no %s", rev, obj.path)
}

// pin makes sure every blob of files is written under o, reading those
// that are not with one git cat-file, and holds them there until unpinned.
func (o *objects) pin(ctx context.Context, repo string, files []lsEntry) ([]*blob, error) {
	o.fetch.Lock()
	defer o.fetch.Unlock()
	o.mu.Lock()
	o.tick++
	var pinned []*blob
	var missing []lsEntry
	asked := map[string]bool{}
	for _, e := range files {
		if e.kind != "blob" {
			continue
		}
		if b, ok := o.blobs[e.id]; ok {
			if b.used != o.tick {
				b.pins++
				b.used = o.tick
				pinned = append(pinned, b)
			}
		} else if !asked[e.id] {
			asked[e.id] = true
			missing = append(missing, e)
		}
	}
	o.mu.Unlock()
	if len(missing) == 0 {
		return pinned, nil
	}
	unpinAll := func() {
		o.mu.Lock()
		for _, b := range pinned {
			b.pins--
		}
		o.mu.Unlock()
	}
	var q bytes.Buffer
	for _, e := range missing {
		q.WriteString(e.id + "\n")
	}
	cmd, err := gitCmd(repo, &q, "cat-file", "--batch")
	if err != nil {
		unpinAll()
		return nil, err
	}
	st, err := cmd.Stream(ctx)
	if err != nil {
		unpinAll()
		return nil, err
	}
	var written []*blob
	rerr := readBatch(st, missing, func(i int, content io.Reader) error {
		b, err := o.write(missing[i], content)
		if err == nil {
			written = append(written, b)
		}
		return err
	})
	if rerr != nil {
		st.Close()
	}
	io.Copy(io.Discard, st)
	werr := st.Wait()
	if rerr == nil && werr != nil {
		rerr = gitErr("cat-file", werr)
	}
	if rerr != nil {
		for _, b := range written {
			os.Remove(b.file)
		}
		unpinAll()
		return nil, fmt.Errorf("%s: %v", repo, rerr)
	}
	o.mu.Lock()
	for _, b := range written {
		b.pins, b.used = 1, o.tick
		o.blobs[b.id] = b
		o.byIno[b.ino] = b
		pinned = append(pinned, b)
		o.size += b.size
	}
	o.mu.Unlock()
	return pinned, nil
}

// write stores one blob read from git, reading its directives on the way.
func (o *objects) write(e lsEntry, content io.Reader) (*blob, error) {
	p := filepath.Join(o.root, "objects", e.id)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return nil, err
	}
	r := io.TeeReader(content, f)
	ds, err := scanDirectives(r)
	if err == nil {
		_, err = io.Copy(io.Discard, r)
	}
	var st syscall.Stat_t
	if err == nil {
		err = syscall.Fstat(int(f.Fd()), &st)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return nil, err
	}
	return &blob{id: e.id, file: p, size: e.size, ino: uint64(st.Ino), dirs: ds}, nil
}

// evict removes blob files no live tree holds, least recently used first,
// while o holds more than objectsBudget bytes.
func (o *objects) evict() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.size <= objectsBudget {
		return
	}
	var free []*blob
	for _, b := range o.blobs {
		if b.pins == 0 {
			free = append(free, b)
		}
	}
	sort.Slice(free, func(i, j int) bool { return free[i].used < free[j].used })
	for _, b := range free {
		if o.size <= objectsBudget {
			return
		}
		if os.Remove(b.file) == nil {
			delete(o.blobs, b.id)
			delete(o.byIno, b.ino)
			o.size -= b.size
		}
	}
}

// materialize makes the files of a version under dir: hard links to the
// blobs (all pinned), symbolic links, and an empty directory per
// submodule, as git archive would unpack them. A path at or under a link
// it made (a crafted tree can hold a link and a directory of one name)
// would write wherever the link points, and a link that leaves dir would
// let the compiler read there: both are refused.
func (o *objects) materialize(files []lsEntry, dir string) error {
	made := map[string]lsEntry{}
	links := map[string]bool{}
	dirs := map[string]bool{"": true}
	mkdirs := func(p string) error {
		var todo []string
		for q := path.Dir(p); q != "." && !dirs[q]; q = path.Dir(q) {
			todo = append(todo, q)
		}
		for i := len(todo) - 1; i >= 0; i-- {
			if err := os.Mkdir(filepath.Join(dir, filepath.FromSlash(todo[i])), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			dirs[todo[i]] = true
		}
		return nil
	}
	for _, e := range files {
		name := e.path
		if err := validPath(name); err != nil {
			return fmt.Errorf("git tree: %q: %v", name, err)
		}
		for q := name; q != "."; q = path.Dir(q) {
			if links[q] {
				return fmt.Errorf("%s is at or under the symlink %s", name, q)
			}
		}
		if prev, ok := made[name]; ok || dirs[name] {
			if ok && prev.id == e.id && prev.mode == e.mode {
				continue // two include paths that overlap
			}
			return fmt.Errorf("git tree: %s given twice", name)
		}
		made[name] = e
		if err := mkdirs(name); err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if e.mode == "160000" {
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
			dirs[name] = true
			continue
		}
		o.mu.Lock()
		b := o.blobs[e.id]
		o.mu.Unlock()
		if b == nil {
			return fmt.Errorf("%s: blob %s not read", name, e.id)
		}
		if e.mode != "120000" {
			if err := os.Link(b.file, p); err != nil {
				return err
			}
			continue
		}
		if e.size > maxLink {
			return fmt.Errorf("%s: a link of %d bytes", name, e.size)
		}
		target, err := os.ReadFile(b.file)
		if err != nil {
			return err
		}
		// A link out of the tree would let the compiler read there (an
		// absolute one too: it is made as it is). This check is by the
		// name only: one that climbs out through a link inside
		// (d -> ".", then d/x/../..) is refused by tree.link, which
		// resolves each link as the kernel does once all exist.
		t := string(target)
		if path.IsAbs(t) || t == "" || strings.IndexByte(t, 0) >= 0 {
			return fmt.Errorf("%s is a link to %s, outside the tree", name, t)
		}
		if j := path.Join(path.Dir(name), t); j == ".." || strings.HasPrefix(j, "../") {
			return fmt.Errorf("%s is a link to %s, outside the tree", name, t)
		}
		if err := os.Symlink(t, p); err != nil {
			return err
		}
		links[name] = true
	}
	return nil
}

// validPath refuses a path that git would never write into a tree: empty
// components, ".", "..", or an absolute path.
func validPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return errors.New("not a relative path")
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." {
			return errors.New(`an empty, "." or ".." component`)
		}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return errors.New("holds a NUL")
	}
	return nil
}

// lsEntry is one entry of git ls-tree -z -l.
type lsEntry struct {
	mode string // 100644, 100755, 120000 (a link), 160000 (a submodule), 040000 (a tree)
	kind string // blob, commit or tree, as the mode says
	id   string
	size int64  // -1 for a tree or a submodule
	path string // relative to the tree listed
}

// lsTreeKind is the object type each mode git ls-tree shows must name.
var lsTreeKind = map[string]string{"100644": "blob", "100755": "blob", "120000": "blob", "160000": "commit", "040000": "tree"}

// parseLsTree reads the output of git ls-tree -z -l (with -r when
// recursive: then no entry is a tree): "MODE TYPE ID SIZE\tPATH\0" per
// entry. Every field is checked: a path that is empty, absolute or has a
// "." or ".." component, a mode that does not match the type, an id or
// size that is not one.
func parseLsTree(b []byte, recursive bool) ([]lsEntry, error) {
	var out []lsEntry
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, errors.New("git ls-tree: an entry without its NUL")
		}
		rec := b[:i]
		b = b[i+1:]
		if len(out) >= maxTreeFiles {
			return nil, fmt.Errorf("git ls-tree: more than %d entries", maxTreeFiles)
		}
		meta, name, ok := bytes.Cut(rec, []byte("\t"))
		if !ok {
			return nil, fmt.Errorf("git ls-tree: %.80q: no tab", rec)
		}
		f := strings.Fields(string(meta))
		if len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: %.80q: not MODE TYPE ID SIZE", meta)
		}
		e := lsEntry{mode: f[0], kind: f[1], id: f[2], size: -1, path: string(name)}
		want := lsTreeKind[e.mode]
		if want == "" || want != e.kind || recursive && e.kind == "tree" {
			return nil, fmt.Errorf("git ls-tree: %q: mode %s with type %s", e.path, e.mode, e.kind)
		}
		if !isObjectID(e.id) {
			return nil, fmt.Errorf("git ls-tree: %q: %q is not an object id", e.path, e.id)
		}
		if e.kind == "blob" {
			n, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil || n < 0 || f[3][0] == '+' {
				return nil, fmt.Errorf("git ls-tree: %q: size %q", e.path, f[3])
			}
			e.size = n
		} else if f[3] != "-" {
			return nil, fmt.Errorf("git ls-tree: %q: size %q for a %s", e.path, f[3], e.kind)
		}
		if err := validPath(e.path); err != nil {
			return nil, fmt.Errorf("git ls-tree: %q: %v", e.path, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// readBatch reads git cat-file --batch's answer to the blobs asked, in
// order ("ID blob SIZE\n", SIZE bytes, "\n" each), and calls each with
// every blob's content, exactly SIZE bytes, the size its listing said.
func readBatch(r io.Reader, asked []lsEntry, each func(i int, content io.Reader) error) error {
	br := bufio.NewReaderSize(r, 4096)
	for i, e := range asked {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return fmt.Errorf("git cat-file: the answer ends before blob %s", e.id)
			}
			return fmt.Errorf("git cat-file: %v", err)
		}
		f := strings.Fields(string(line))
		switch {
		case len(f) == 2 && f[0] == e.id && f[1] == "missing":
			return fmt.Errorf("git cat-file: blob %s is missing", e.id)
		case len(f) != 3 || f[0] != e.id || f[1] != "blob":
			return fmt.Errorf("git cat-file: %.100q, for blob %s", line, e.id)
		case f[2] != strconv.FormatInt(e.size, 10):
			return fmt.Errorf("git cat-file: blob %s has %s bytes, its tree says %d", e.id, f[2], e.size)
		}
		lr := &io.LimitedReader{R: br, N: e.size}
		if err := each(i, lr); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, lr); err != nil {
			return fmt.Errorf("git cat-file: %v", err)
		}
		if lr.N != 0 {
			return fmt.Errorf("git cat-file: blob %s ends %d bytes short", e.id, lr.N)
		}
		if c, err := br.ReadByte(); err != nil || c != '\n' {
			return fmt.Errorf("git cat-file: blob %s is not followed by a newline", e.id)
		}
	}
	return nil
}
