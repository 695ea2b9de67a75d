package bind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/walk"
)

// DefaultImageMemory bounds what LoadImage holds of an image. An ELF
// file is not held: it is parsed as its layer is read, and only what the
// audit reads of it (its object: dynamic section, needed list, versions,
// the symbols it needs and defines, names copied once per image) is kept,
// so an image of thousands of small distinct programs (4,000 × 64 KiB in
// an 81 KB zstd --long layer) costs their tables, not their bytes (issue
// 19 item 13: 424 MB before).
const DefaultImageMemory = limits.ImageMemory

// Image is a container image's file system held in memory: its layers
// applied (whiteouts and opaque directories included) as an
// artefact.View, and the whole contents of its ELF files and of its
// /etc/ld.so.cache. Nothing is extracted to disk. It is read-only once
// loaded, so safe for concurrent use.
type Image struct {
	// Name is the image as named (an OCI layout directory or a
	// `docker save` tarball); reports name files Name!/usr/bin/x.
	Name string
	// Path is where the image's programs are: the PATH its
	// configuration sets, else DefaultPath.
	Path []string
	// Problems are the members that could not be read ("path: error"),
	// the first maxProblems of them; MoreProblems counts the rest.
	Problems     []string
	MoreProblems int64
	view         *artefact.View
	dirs         map[string]bool // directories implied by the entries' names
	files        map[string]imageFile
	bad          map[string]error // members that could not be read
	ids          map[string]uint64
	held         int64
}

// maxProblems is how many unreadable members of an image are listed: a
// layer of 100,000 members with absolute names (522 KB) made 9.5 MB of
// warnings.
const maxProblems = limits.Unreadable

// DefaultPath returns the PATH of an image whose configuration sets none
// (Docker's default), a new slice each call.
func DefaultPath() []string {
	return []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}
}

// imageFile is what an image holds of one of its files: for an ELF file
// its parsed object (or the error parsing it), and the first bytes that
// tell it is ELF; for a file named to keep (ld.so.cache) its contents.
// The member is read sparse when over imageSparseOver (artefact.Sparse:
// only its non-executable parts), then parsed and dropped.
type imageFile struct {
	r      io.ReaderAt
	size   int64
	head   []byte
	obj    *object
	objErr error
}

// imageSparseOver is the size above which an ELF file of an image is
// held sparse (a variable for the tests).
var imageSparseOver int64 = 64 << 10 // the least Sparse takes

// imageDev marks the file keys of an image's files.
const imageDev = 1<<64 - 1

// ErrImageMemory is wrapped by LoadImage's error for an image whose ELF
// files take more memory than its limit.
var ErrImageMemory = errors.New("over the memory limit")

// LoadImage reads the image at p in one pass of its layers: the view
// (names, kinds, links), the ELF files and ld.so.cache, and the files
// named by keep (paths inside the image: an ld.so.cache given with
// Options.CacheFile). Holding more than maxMemory bytes
// (DefaultImageMemory when <= 0) is an error.
func LoadImage(ctx context.Context, p string, maxMemory int64, keep ...string) (*Image, error) {
	if maxMemory <= 0 {
		maxMemory = DefaultImageMemory
	}
	img := &Image{Name: p, Path: DefaultPath(), dirs: map[string]bool{"/": true}, files: map[string]imageFile{}, bad: map[string]error{}, ids: map[string]uint64{}}
	opt := artefact.Options{
		MaxMember:  min(maxMemory, artefact.DefaultMaxMember),
		SparseOver: imageSparseOver,
		Depth:      1,
		Want: func(name string) bool {
			if name == "/etc/ld.so.cache" {
				return true
			}
			for _, k := range keep {
				if name == path.Clean("/"+k) {
					return true
				}
			}
			return false
		},
	}
	errTooMuch := errors.New("too much")
	strs := interner{}
	// What one ELF file's tables may take: the image's share
	// (artefact.HoldLimit), and never more than the whole limit.
	size := artefact.SizeOf(p)
	hold, holdWhy := min(artefact.HoldLimit(size), maxMemory), artefact.HoldWhy(size)
	if hold == maxMemory {
		holdWhy = "--max-memory"
	}
	v, err := artefact.WalkView(ctx, p, opt, func(m *artefact.Member) error {
		if m.Err != nil {
			if errors.Is(m.Err, artefact.ErrTooLarge) && opt.MaxMember == maxMemory {
				return errTooMuch
			}
			if len(img.Problems) < maxProblems {
				img.Problems = append(img.Problems, m.Name+": "+m.Err.Error())
			} else {
				img.MoreProblems++
			}
			img.bad[m.Name] = m.Err
			return nil
		}
		if m.Content == nil {
			return nil
		}
		f := imageFile{r: m.Content, size: m.Size}
		head := make([]byte, min(m.Size, headSize))
		n, err := m.Content.ReadAt(head, 0)
		if err != nil && n < len(head) {
			img.bad[m.Name] = err
			return nil
		}
		if elfx.IsELF(head) && !opt.Want(m.Name) {
			// Parsed now, its bytes dropped: the object is all the
			// audit reads of it.
			f.obj, f.objErr = parseObjectHead(m.Content, m.Size, head, hold, holdWhy)
			if errors.Is(f.objErr, elfx.ErrHoldLimit) {
				// Valid to the loader, too large for this image to
				// hold: no verdict on what needs it would be true.
				return &input.FileError{Path: artefact.Join(p, m.Name), Err: f.objErr}
			}
			f.r, f.head = nil, head[:min(len(head), elfHead)]
			img.held += strs.detach(f.obj) + int64(len(f.head))
			if f.objErr != nil {
				img.held += int64(len(f.objErr.Error()))
			}
		} else {
			f.head = head
			if c, ok := m.Content.(*artefact.Sparse); ok {
				img.held += c.Held()
			} else {
				img.held += m.Size
			}
			img.held += int64(len(head))
		}
		if img.held > maxMemory {
			return errTooMuch
		}
		img.files[m.Name] = f
		return nil
	})
	if errors.Is(err, errTooMuch) {
		return nil, &input.FileError{Path: p, Err: fmt.Errorf("%w: its ELF files take more than %d bytes of memory", ErrImageMemory, maxMemory)}
	}
	if err != nil {
		return nil, err
	}
	if len(v.Entries) == 0 {
		return nil, &input.FileError{Path: p, Err: errors.New("no file in it: not a container image (an OCI layout directory or a `docker save` tarball), or an empty one")}
	}
	img.view = v
	for _, e := range v.Env {
		if p, ok := strings.CutPrefix(e, "PATH="); ok {
			img.Path = strings.Split(p, ":")
		}
	}
	for n := range v.Entries {
		for d := path.Dir(n); !img.dirs[d]; d = path.Dir(d) {
			img.dirs[d] = true
		}
	}
	names := make([]string, 0, len(v.Entries))
	for n := range v.Entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		img.ids[n] = uint64(i + 1)
	}
	for n, f := range img.files {
		if f.obj != nil {
			f.obj.key = fileKey{imageDev, img.ids[n]}
		}
	}
	return img, nil
}

// elfHead is what an image keeps of an ELF file's bytes: enough to tell
// it is ELF.
const elfHead = 64

// interner holds one copy of each name of an image's objects. A name
// parsed from a file is a view of its whole dynamic string table, which
// would keep the table (as large as the file) alive; copied once per
// image, the names that thousands of programs share cost one copy.
type interner map[string]string

func (in interner) str(s string) (string, int64) {
	if c, ok := in[s]; ok {
		return c, 0
	}
	c := strings.Clone(s)
	in[c] = c
	return c, int64(len(c)) + 48 // the bytes and the map entry
}

// detach replaces every name of o with its copy in the interner, so o
// holds nothing of its file, and returns an estimate of the memory o
// holds: its tables and the names it added.
func (in interner) detach(o *object) int64 {
	if o == nil {
		return 0
	}
	var n, k int64
	str := func(s *string) {
		*s, k = in.str(*s)
		n += k + 16
	}
	strs := func(ss []string) {
		for i := range ss {
			str(&ss[i])
		}
	}
	n += 512 // the object itself
	str(&o.Arch)
	str(&o.Interp)
	str(&o.Soname)
	strs(o.Needed)
	strs(o.Rpath)
	strs(o.Runpath)
	for i := range o.defs {
		str(&o.defs[i].version)
		n += 24
	}
	if o.defHead != nil {
		heads := make(map[string]int32, len(o.defHead))
		for name, i := range o.defHead {
			c, k := in.str(name)
			heads[c] = i
			n += k + 48
		}
		o.defHead = heads
	}
	if o.verdefs != nil {
		vd := make(map[string]bool, len(o.verdefs))
		for name := range o.verdefs {
			c, k := in.str(name)
			vd[c] = true
			n += k + 48
		}
		o.verdefs = vd
	}
	for i := range o.verneeds {
		v := &o.verneeds[i]
		str(&v.File)
		for j := range v.Versions {
			str(&v.Versions[j].Name)
			n += 24
		}
	}
	for i := range o.refs {
		r := &o.refs[i]
		str(&r.Name)
		str(&r.Version)
		str(&r.File)
		str(&r.Reloc)
		str(&r.Binding)
		n += 24
	}
	return n
}

// Held is the number of bytes of file contents the image holds.
func (img *Image) Held() int64 { return img.held }

// Files lists the image's regular files under dir (inside the image),
// sorted.
func (img *Image) Files(dir string) []string {
	dir = path.Clean("/" + dir)
	var out []string
	for n, e := range img.view.Entries {
		if e.Type != 0 || (dir != "/" && n != dir && !strings.HasPrefix(n, dir+"/")) {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// programs lists the regular files directly in the directories of the
// image's PATH, in the PATH's order, each directory once and its files
// sorted. One pass over the entries, however long the PATH.
func (img *Image) programs() []string {
	in := map[string][]string{}
	var order []string
	for _, d := range img.Path {
		r, err := resolveFS(img, "/", path.Clean("/"+d))
		if _, dup := in[r]; err != nil || dup {
			continue
		}
		in[r] = []string{}
		order = append(order, r)
	}
	for n, e := range img.view.Entries {
		if l, ok := in[path.Dir(n)]; ok && e.Type == 0 {
			in[path.Dir(n)] = append(l, n)
		}
	}
	var out []string
	for _, d := range order {
		sort.Strings(in[d])
		out = append(out, in[d]...)
	}
	return out
}

func (img *Image) lstat(p string) (fs.FileMode, int64, error) {
	p = path.Clean("/" + p)
	if e, ok := img.view.Entries[p]; ok {
		return e.Type, e.Size, nil
	}
	if img.dirs[p] {
		return fs.ModeDir, 0, nil
	}
	return 0, 0, &fs.PathError{Op: "lstat", Path: p, Err: syscall.ENOENT}
}

func (img *Image) stat(p string) (fs.FileMode, int64, error) {
	r, err := resolveFS(img, "/", p)
	if err != nil {
		return 0, 0, err
	}
	return img.lstat(r)
}

func (img *Image) readlink(p string) (string, error) {
	p = path.Clean("/" + p)
	if e, ok := img.view.Entries[p]; ok && e.Type == fs.ModeSymlink {
		return e.Link, nil
	}
	return "", &fs.PathError{Op: "readlink", Path: p, Err: syscall.EINVAL}
}

func (img *Image) open(p string, head, buf []byte) (openFile, error) {
	// Links on the way are followed, as open(2) follows them.
	p, err := resolveFS(img, "/", path.Clean("/"+p))
	if err != nil {
		return openFile{}, err
	}
	e, ok := img.view.Entries[p]
	if !ok {
		if img.dirs[p] {
			return openFile{}, &fs.PathError{Op: "open", Path: p, Err: input.ErrNotRegular}
		}
		return openFile{}, &fs.PathError{Op: "open", Path: p, Err: syscall.ENOENT}
	}
	if e.Type != 0 {
		return openFile{}, &fs.PathError{Op: "open", Path: p, Err: input.ErrNotRegular}
	}
	name := p
	if e.Link != "" { // a hard link: the contents are its target's
		name = path.Clean("/" + e.Link)
	}
	if err := img.bad[name]; err != nil {
		return openFile{}, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	f, held := img.files[name]
	in := openFile{key: fileKey{imageDev, img.ids[name]}, size: e.Size}
	if !held {
		// Not ELF (its contents were not kept): the empty head says so.
		in.r, in.size = bytes.NewReader(nil), 0
		return in, nil
	}
	in.r, in.size, in.head = f.r, f.size, f.head
	in.obj, in.objErr = f.obj, f.objErr
	return in, nil
}

// auditImage audits the files of the image named by paths (inside the
// image; a directory means the files under it), or every program of the
// image when paths is empty. Reports name the files Image.Name!/path.
func (a *Auditor) auditImage(ctx context.Context, paths []string) *Result {
	type job struct {
		p     string
		named bool
		prog  bool  // keep programs only
		err   error // the path does not resolve in the image
	}
	var jobs []job
	if len(paths) == 0 {
		for _, p := range a.img.programs() {
			jobs = append(jobs, job{p: p, prog: true})
		}
	}
	for _, arg := range paths {
		p := path.Clean("/" + arg)
		r, err := resolveFS(a.img, "/", p)
		if err == nil {
			var mode fs.FileMode
			if mode, _, err = a.img.lstat(r); err == nil && mode.IsDir() {
				for _, f := range a.img.Files(r) {
					jobs = append(jobs, job{p: f})
				}
				continue
			}
		}
		if err != nil {
			jobs = append(jobs, job{p: p, err: err})
			continue
		}
		jobs = append(jobs, job{p: p, named: true})
	}
	// Root is the job's index, so the reports come in the jobs' order.
	files := make(chan walk.File)
	go func() {
		defer close(files)
		for i, j := range jobs {
			select {
			case files <- walk.File{Path: j.p, Root: i}:
			case <-ctx.Done():
				return
			}
		}
	}()
	res := a.process(ctx, files, func(wf walk.File, buf []byte) (FileReport, bool) {
		j := jobs[wf.Root]
		if j.err != nil {
			return errorReport(j.p, j.err), true
		}
		rep, ok := a.file(ctx, j.p, FileOptions{Named: j.named}, buf)
		if j.prog && rep.Kind != elfx.Executable && rep.Kind != elfx.PIEExecutable && (rep.Kind != "" || rep.Error == nil) {
			return rep, false
		}
		return rep, ok
	})
	for i := range res.Files {
		res.Files[i].Path = artefact.Join(a.img.Name, res.Files[i].Path)
	}
	return res
}
