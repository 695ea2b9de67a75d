package floor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/walk"
)

// Options tune a Scan.
type Options struct {
	Follow  bool     // follow symbolic links inside trees
	Exclude []string // patterns of names or paths to skip inside trees
	Why     bool     // name the symbols behind every floor
	Limits  Limits   // when set, report violations (check)
	Workers int      // parallel file readers (default 2×GOMAXPROCS)
	// Progress, when set, is called now and then, from any worker
	// goroutine, with the files seen and the ELF files among them.
	Progress func(files, elf int64)
}

// Result is a whole scan. Field names are part of the JSON contract.
type Result struct {
	Files []FileReport `json:"files"`
	// Floors is the tree-wide floor: the highest of every file's.
	Floors     map[string]string `json:"floors"`
	Violations []Violation       `json:"violations,omitempty"`
	Stats      Stats             `json:"stats"`
}

// Stats counts what a scan looked at.
type Stats struct {
	Files    int64 `json:"files"`     // regular files looked at
	ELF      int64 `json:"elf"`       // ELF files among them
	Errors   int64 `json:"errors"`    // files or paths that could not be read
	Symlinks int64 `json:"symlinks"`  // links not followed
	Special  int64 `json:"special"`   // FIFOs, sockets, devices: skipped
	HardDups int64 `json:"hardlinks"` // hard links and directories seen twice
	Excluded int64 `json:"excluded"`  // entries skipped by --exclude
}

type item struct {
	rep  FileReport
	viol []Violation
	link hardLink // set for files with several names
}

type hardLink struct{ dev, ino uint64 }

// Scan reads every ELF file under paths. Files that cannot be read are
// reported with Error set; the scan goes on. Results are ordered by the
// path argument they came from, then by path.
func Scan(ctx context.Context, paths []string, opt Options) *Result {
	if opt.Workers <= 0 {
		opt.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	var ws walk.Stats
	files := walk.Walk(ctx, paths, walk.Options{Follow: opt.Follow, Exclude: opt.Exclude, Keep: elfx.IsELF, HeadSize: 4096}, &ws)
	var done, elfs atomic.Int64
	items := walk.Process(files, opt.Workers, func() func(walk.File) (item, bool) {
		head := make([]byte, 4096)
		return func(wf walk.File) (item, bool) {
			it, isELF := scanOne(wf, head, opt)
			if isELF {
				elfs.Add(1)
			}
			if opt.Progress != nil && done.Add(1)%256 == 0 {
				opt.Progress(ws.Files.Load(), elfs.Load())
			}
			return it, isELF
		}
	})
	res := &Result{Files: make([]FileReport, 0, len(items)), Floors: map[string]string{}}
	// A file with several names is reported under the first in output
	// order, whichever worker happened to read it first.
	links := map[hardLink]bool{}
	for _, x := range items {
		it := x.Value
		if it.link != (hardLink{}) {
			if links[it.link] {
				res.Stats.HardDups++
				continue
			}
			links[it.link] = true
		}
		res.Files = append(res.Files, it.rep)
		res.Violations = append(res.Violations, it.viol...)
		if it.rep.Error != "" {
			res.Stats.Errors++
		}
		if it.rep.Floors != nil {
			Merge(res.Floors, it.rep.Floors)
		}
		if it.rep.Arch != "" || it.rep.Error == "" {
			res.Stats.ELF++
		}
	}
	res.Stats.Files = ws.Files.Load()
	res.Stats.Symlinks = ws.Symlinks.Load()
	res.Stats.Special = ws.Special.Load()
	res.Stats.HardDups += ws.Dups.Load()
	res.Stats.Excluded = ws.Excluded.Load()
	return res
}

// scanOne reads one file. Walk errors and read errors of files that might
// be ELF are reported (isELF true, so they are listed); files that are not
// ELF are dropped.
func scanOne(wf walk.File, head []byte, opt Options) (item, bool) {
	it := item{rep: FileReport{Path: wf.Path}}
	if wf.Err != nil {
		it.rep.Error = wf.Err.Error()
		return it, true
	}
	fd, err := unix.Open(wf.Path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		it.rep.Error = (&os.PathError{Op: "open", Path: wf.Path, Err: err}).Error()
		return it, true
	}
	defer unix.Close(fd)
	// The walker has read the head of files inside trees; a path named
	// on the command line is read here.
	if wf.Head != nil {
		head = wf.Head
	} else {
		n, err := unix.Pread(fd, head, 0)
		if err != nil {
			it.rep.Error = (&os.PathError{Op: "read", Path: wf.Path, Err: err}).Error()
			return it, true
		}
		head = head[:max(n, 0)]
	}
	if !elfx.IsELF(head) {
		return it, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		it.rep.Error = (&os.PathError{Op: "stat", Path: wf.Path, Err: err}).Error()
		return it, true
	}
	if st.Nlink > 1 {
		it.link = hardLink{uint64(st.Dev), st.Ino}
	}
	f, err := elfx.NewFileHead(elfx.FD(fd), st.Size, head)
	if err != nil {
		it.rep.Error = fileErr(wf.Path, err)
		return it, true
	}
	it.rep, it.viol = Analyze(f, wf.Path, opt.Why, opt.Limits)
	if it.rep.Error != "" {
		it.rep.Error = wf.Path + ": " + it.rep.Error
	}
	return it, true
}

func fileErr(path string, err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return err.Error()
	}
	return fmt.Sprintf("%s: %v", path, err)
}
