// Package walk lists the regular files under a set of paths, fast and
// safely, for tools that read thousands of binaries.
//
// Directories are read in parallel with getdents, whose entries already
// carry the file type, so no file is stat'ed to learn what it is. Hard links
// are reported under each name: a consumer that opens a file learns its
// device and inode from fstat anyway and can dedupe the few files with
// several links itself. FIFOs, sockets and
// devices inside a tree are counted and never opened. Symbolic links are
// not followed unless Options.Follow is set; then directory loops are
// detected by device and inode and cut. A path named explicitly is always
// resolved, like find -H.
package walk

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/abifloor/abifloor/internal/input"

	"golang.org/x/sys/unix"
)

// File is one regular file found, or an error about a path.
type File struct {
	Path string
	Root int // index of the root it was found under
	Err  error
	// Head is the start of the file when Options.Keep is set.
	Head []byte
	// Dir is set for a root directory that Options.Claim took: it was
	// not listed, its caller reads it whole.
	Dir bool
}

// Options tune a walk.
type Options struct {
	// Follow makes the walk follow symbolic links inside the trees.
	Follow bool
	// Within, when set with Follow, follows only the links whose target
	// (resolved by this machine's kernel, links all the way) lies inside
	// this directory: an image audited with a sysroot must not lead the
	// walk into the host's tree. The others count as links not followed.
	Within string
	// Workers is the number of directory readers (default GOMAXPROCS).
	Workers int
	// Keep, when set, makes the walker read the first HeadSize bytes of
	// every regular file itself (with openat on the directory it is
	// listing, which is cheaper than a later open by path) and send only
	// the files Keep accepts, with their Head. Scanning a tree where few
	// files matter (ELF files in /usr) then never hands the others on.
	Keep     func(head []byte) bool
	HeadSize int
	// Claim, when set, is asked about each root that is a directory;
	// one it claims is sent as a File with Dir set instead of being
	// listed (an OCI image layout, read as one artefact). It is called
	// from one goroutine, root by root. Asking here,
	// where the root is stat'ed anyway, costs the roots that are files
	// nothing.
	Claim func(dir string) bool
	// Exclude holds shell patterns (path.Match syntax). A file or
	// directory inside a tree is skipped when a pattern matches its name
	// or its whole path; a skipped directory is not entered. Roots are
	// never excluded.
	Exclude []string
}

// excluded reports whether an entry matches an Exclude pattern.
func (w *walker) excluded(name, path string) bool {
	for _, p := range w.opt.Exclude {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
		if ok, _ := filepath.Match(p, path); ok {
			return true
		}
	}
	return false
}

// Stats counts what a walk saw besides regular files.
type Stats struct {
	Dirs     atomic.Int64
	Files    atomic.Int64
	Symlinks atomic.Int64 // links not followed
	Special  atomic.Int64 // FIFOs, sockets, devices: never opened
	Dups     atomic.Int64 // directories reached twice (bind mounts, followed links)
	Pseudo   atomic.Int64 // mounts of /proc, /sys and the like, not entered
	Excluded atomic.Int64 // entries matching Options.Exclude
}

type devIno struct{ dev, ino uint64 }

type walker struct {
	ctx   context.Context
	opt   Options
	out   chan<- File
	stats *Stats
	seen  sync.Map // devIno of directories already listed
	dirs  chan dirJob
	wg    sync.WaitGroup
	// realRoots are the roots resolved (absolute, links and all): a
	// followed link must resolve inside its root, or inside Within.
	realRoots []string
}

type dirJob struct {
	path string
	root int
	// parentDev is the device of the directory holding this one, or 0 for
	// a root: a change of device is a mount point.
	parentDev uint64
}

// Walk sends every regular file under roots to the returned channel, which
// is closed when the walk is done or ctx is cancelled. The order of files
// is not defined; sort them if it matters.
func Walk(ctx context.Context, roots []string, opt Options, stats *Stats) <-chan File {
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if stats == nil {
		stats = new(Stats)
	}
	// Room for every root: thousands of files named on a command line
	// are stat'ed ahead of the readers, which then never wait for the
	// walker, nor wake it for each file they take.
	out := make(chan File, min(max(256, len(roots)), 1<<16))
	w := &walker{ctx: ctx, opt: opt, out: out, stats: stats, dirs: make(chan dirJob, 1024)}
	if opt.Follow && opt.Within == "" {
		for _, r := range roots {
			real, err := filepath.EvalSymlinks(r)
			if err == nil {
				real, err = filepath.Abs(real)
			}
			if err != nil {
				real = "" // the root itself fails in root()
			}
			w.realRoots = append(w.realRoots, real)
		}
	}
	for i := 0; i < opt.Workers; i++ {
		go func() {
			for j := range w.dirs {
				w.readDir(j)
				w.wg.Done()
			}
		}()
	}
	go func() {
		for i, r := range roots {
			w.root(r, i)
		}
		w.wg.Wait()
		close(w.dirs)
		close(out)
	}()
	return out
}

func (w *walker) send(f File) {
	select {
	case w.out <- f:
	case <-w.ctx.Done():
	}
}

func (w *walker) root(path string, idx int) {
	// A named path is resolved even when it is a link (find -H).
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		w.send(File{Path: path, Root: idx, Err: &os.PathError{Op: "stat", Path: path, Err: err}})
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if w.opt.Claim != nil && w.opt.Claim(path) {
			w.send(File{Path: path, Root: idx, Dir: true})
			return
		}
		if w.firstVisit(devIno{st.Dev, st.Ino}) {
			w.enqueue(dirJob{path: filepath.Clean(path), root: idx})
		}
	case unix.S_IFREG:
		w.stats.Files.Add(1)
		w.send(File{Path: path, Root: idx})
	default:
		w.stats.Special.Add(1)
		// Never opened: a FIFO would block, a device may never end.
		w.send(File{Path: path, Root: idx, Err: &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s: %w", kindName(st.Mode), input.ErrNotRegular)}})
	}
}

func (w *walker) firstVisit(k devIno) bool {
	_, loaded := w.seen.LoadOrStore(k, struct{}{})
	return !loaded
}

// enqueue hands a directory to the pool, or reads it inline when the
// queue is full, so a deep tree can never deadlock the workers.
func (w *walker) enqueue(j dirJob) {
	w.wg.Add(1)
	select {
	case w.dirs <- j:
	default:
		w.readDir(j)
		w.wg.Done()
	}
}

func (w *walker) readDir(j dirJob) {
	if w.ctx.Err() != nil {
		return
	}
	w.stats.Dirs.Add(1)
	fd, err := unix.Open(j.path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT && j.parentDev != 0 {
		return // removed since its parent was listed
	}
	if err != nil {
		w.send(File{Path: j.path, Root: j.root, Err: &os.PathError{Op: "open", Path: j.path, Err: err}})
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		w.send(File{Path: j.path, Root: j.root, Err: &os.PathError{Op: "stat", Path: j.path, Err: err}})
		return
	}
	dev := st.Dev
	if j.parentDev != 0 && dev != j.parentDev && pseudoFS(fd) {
		// /proc, /sys and their kin hold no binaries, and reading their
		// files can block or have side effects. Named as a root, they
		// are read.
		w.stats.Pseudo.Add(1)
		return
	}
	var head []byte
	if w.opt.Keep != nil {
		head = make([]byte, max(w.opt.HeadSize, 64))
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			w.send(File{Path: j.path, Root: j.root, Err: &os.PathError{Op: "readdir", Path: j.path, Err: err}})
			return
		}
		if n <= 0 {
			return
		}
		// A directory of thousands of files would otherwise be opened
		// to its end after the signal: each entry asks first.
		done := w.ctx.Done()
		stopped := false
		parseDirents(buf[:n], func(ino uint64, typ uint8, name string) {
			if stopped {
				return
			}
			select {
			case <-done:
				stopped = true
				return
			default:
			}
			w.entry(j, fd, dev, ino, typ, name, head)
		})
		if stopped {
			return
		}
	}
}

// parseDirents decodes linux_dirent64 records: d_ino u64, d_off i64,
// d_reclen u16, d_type u8, then the NUL-terminated name.
func parseDirents(b []byte, fn func(ino uint64, typ uint8, name string)) {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:]))
		if reclen < 19 || reclen > len(b) {
			return
		}
		ino := binary.NativeEndian.Uint64(b)
		typ := b[18]
		name := b[19:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		b = b[reclen:]
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		fn(ino, typ, string(name))
	}
}

func (w *walker) entry(j dirJob, dirfd int, dev, ino uint64, typ uint8, name string, head []byte) {
	// Roots are cleaned, so joining is concatenation (no filepath.Join
	// per file).
	var path string
	switch j.path {
	case ".":
		path = name
	case "/":
		path = "/" + name
	default:
		path = j.path + "/" + name
	}
	if len(w.opt.Exclude) > 0 && w.excluded(name, path) {
		w.stats.Excluded.Add(1)
		return
	}
	// target is where a followed link resolves: its head is read there,
	// the link's own name being a link that O_NOFOLLOW refuses.
	target := ""
	if typ == unix.DT_UNKNOWN || (typ == unix.DT_LNK && w.opt.Follow) {
		// The file system did not say, or a link is to be followed.
		var st unix.Stat_t
		var err error
		if typ == unix.DT_LNK {
			within := w.opt.Within
			if within == "" && j.root < len(w.realRoots) {
				within = w.realRoots[j.root]
			}
			real, ok := inside(path, within)
			if within == "" || !ok {
				w.stats.Symlinks.Add(1)
				return
			}
			target = real
			err = unix.Stat(real, &st)
		} else {
			err = unix.Lstat(path, &st)
		}
		if err != nil {
			// A dangling link or a link loop (ELOOP) ends here.
			w.stats.Symlinks.Add(1)
			return
		}
		dev, ino, typ = st.Dev, st.Ino, modeType(st.Mode)
	}
	switch typ {
	case unix.DT_DIR:
		if w.firstVisit(devIno{dev, ino}) {
			w.enqueue(dirJob{path, j.root, dev})
		} else {
			w.stats.Dups.Add(1)
		}
	case unix.DT_REG:
		w.stats.Files.Add(1)
		if w.opt.Keep == nil {
			w.send(File{Path: path, Root: j.root})
			return
		}
		var n int
		var err error
		if target != "" {
			n, err = readHead(unix.AT_FDCWD, target, head)
		} else {
			n, err = readHead(dirfd, name, head)
		}
		switch {
		case err == unix.ENOENT:
			// removed since the listing
		case err != nil:
			w.send(File{Path: path, Root: j.root, Err: &os.PathError{Op: "read", Path: path, Err: err}})
		case w.opt.Keep(head[:n]):
			w.send(File{Path: path, Root: j.root, Head: append([]byte(nil), head[:n]...)})
		}
	case unix.DT_LNK:
		w.stats.Symlinks.Add(1)
	default:
		w.stats.Special.Add(1)
	}
}

// pseudoFS reports whether the directory fd is on a kernel pseudo file
// system.
func pseudoFS(fd int) bool {
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil {
		return false
	}
	switch uint32(fs.Type) {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEVPTS_SUPER_MAGIC, unix.CGROUP_SUPER_MAGIC,
		unix.CGROUP2_SUPER_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC, unix.SECURITYFS_MAGIC,
		unix.BPF_FS_MAGIC, unix.PSTOREFS_MAGIC, unix.EFIVARFS_MAGIC:
		return true
	}
	return false
}

// readHead reads the start of name in dirfd. O_NONBLOCK keeps a FIFO
// swapped in since the listing from blocking the open; O_NOFOLLOW keeps a
// link swapped in from being followed.
func readHead(dirfd int, name string, head []byte) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Pread(fd, head, 0)
		if err == unix.EINTR {
			continue
		}
		return max(n, 0), err
	}
}

func modeType(m uint32) uint8 {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFLNK:
		return unix.DT_LNK
	}
	return unix.DT_FIFO // any special file: never opened
}

func kindName(m uint32) string {
	switch m & unix.S_IFMT {
	case unix.S_IFIFO:
		return "named pipe"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	}
	return "special file"
}

// inside reports whether the link at path resolves to a file under dir
// (dir itself included), and where. dir must be absolute and free of
// links.
func inside(path, dir string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", false
	}
	return real, real == dir || strings.HasPrefix(real, strings.TrimSuffix(dir, "/")+"/")
}
