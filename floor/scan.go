package floor

import (
	"context"
	"fmt"
	"github.com/abifloor/abifloor/artefact"
	"runtime"
	"sync/atomic"

	"github.com/abifloor/abifloor/internal/input"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/targets"
	"github.com/abifloor/abifloor/walk"
)

// Options tune a Scan.
type Options struct {
	Follow  bool     // follow symbolic links inside trees
	Exclude []string // patterns of names or paths to skip inside trees
	Why     bool     // name the symbols behind every floor
	Limits  Limits   // when set, report violations (check)
	// Targets, when set, are checked too: libc, and a policy's rules.
	Targets []targets.Target
	// EachTarget checks each target separately (fit).
	EachTarget bool
	Workers    int // parallel file readers (default 2×GOMAXPROCS)
	// NoTreeArtefacts leaves closed the artefacts met inside
	// directories (a tree of jars costs seconds); named ones are read.
	NoTreeArtefacts bool
	// Progress, when set, is called now and then, from any worker
	// goroutine, with the files seen and the ELF files among them.
	Progress func(files, elf int64)
	// ArtefactProgress, when set, is called from any worker as an
	// artefact is read: the member being read, and the bytes read of
	// the artefact (as on disk) and its size (artefact.Options.Progress).
	ArtefactProgress func(artefact, member string, read, total int64)
	member           func(isELF bool) // set by Scan: a member of an artefact was read
	budget           *artefact.Budget // set by Scan: the run's decompression allowance, shared by its workers
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
	// members, for an artefact, are its ELF members and errors; files
	// counts every regular file in it.
	members []item
	files   int64
}

type hardLink struct{ dev, ino uint64 }

// Scan reads every ELF file under paths. Files that cannot be read are
// reported with Error set; the scan goes on. Results are ordered by the
// path argument they came from, then by path.
func Scan(ctx context.Context, paths []string, opt Options) *Result {
	if opt.Workers <= 0 {
		opt.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	if opt.budget == nil {
		opt.budget = artefact.NewBudget(0)
	}
	var ws walk.Stats
	var done, elfs, members, memberELF atomic.Int64
	if opt.Progress != nil {
		// Members of artefacts move the count too, so a large
		// artefact does not freeze it.
		opt.member = func(isELF bool) {
			if isELF {
				memberELF.Add(1)
			}
			if members.Add(1)%256 == 0 {
				opt.Progress(ws.Files.Load()+members.Load(), elfs.Load()+memberELF.Load())
			}
		}
	}
	paths, layouts := splitLayouts(ctx, paths, opt)
	kept := keep
	if opt.NoTreeArtefacts {
		kept = elfx.IsELF
	}
	files := walk.Walk(ctx, paths, walk.Options{Follow: opt.Follow, Exclude: opt.Exclude, Keep: kept, HeadSize: 4096}, &ws)
	items := walk.Process(files, opt.Workers, func() func(walk.File) (item, bool) {
		head := make([]byte, 4096)
		return func(wf walk.File) (item, bool) {
			it, isELF := scanOne(ctx, wf, head, opt)
			if isELF {
				elfs.Add(1)
			}
			if opt.Progress != nil && done.Add(1)%256 == 0 {
				opt.Progress(ws.Files.Load()+members.Load(), elfs.Load()+memberELF.Load())
			}
			return it, isELF
		}
	})
	items = layouts.merge(items)
	res := &Result{Files: make([]FileReport, 0, len(items)), Floors: map[string]string{}}
	// A file with several names is reported under the first in output
	// order, whichever worker happened to read it first.
	links := map[hardLink]bool{}
	for _, it := range flatten(items) {
		res.Stats.Files += it.files
		if it.rep.Path == "" {
			continue // an artefact's count of files, or one without ELF members
		}
		if it.link != (hardLink{}) {
			if links[it.link] {
				res.Stats.HardDups++
				continue
			}
			links[it.link] = true
		}
		res.Files = append(res.Files, it.rep)
		res.Violations = append(res.Violations, it.viol...)
		if it.rep.Error != nil {
			res.Stats.Errors++
		}
		if it.rep.Floors != nil {
			merge(res.Floors, it.rep.Floors)
		}
		if it.rep.Arch != "" || it.rep.Error == nil {
			res.Stats.ELF++
		}
	}
	res.Violations = dropShipped(res.Files, res.Violations)
	res.Stats.Files += ws.Files.Load()
	res.Stats.Symlinks = ws.Symlinks.Load()
	res.Stats.Special = ws.Special.Load()
	res.Stats.HardDups += ws.Dups.Load()
	res.Stats.Excluded = ws.Excluded.Load()
	return res
}

// scanOne reads one file. Walk errors and read errors of files that might
// be ELF are reported (isELF true, so they are listed); files that are not
// ELF are dropped.
func scanOne(ctx context.Context, wf walk.File, buf []byte, opt Options) (item, bool) {
	it := item{rep: FileReport{Path: wf.Path}}
	if wf.Err != nil {
		it.rep.Error = wf.Err
		return it, true
	}
	// The walker has read the head of files inside trees; a path named
	// on the command line is read here.
	in, err := input.Open(wf.Path, wf.Head, buf)
	if err != nil {
		it.rep.Error = err
		return it, true
	}
	defer in.Close()
	if !elfx.IsELF(in.Head) {
		return scanArtefact(ctx, wf.Path, in.Head, opt)
	}
	if in.Links > 1 {
		it.link = hardLink{in.Dev, in.Ino}
	}
	f, err := elfx.FromInput(in)
	if err != nil {
		it.rep.Error = fmt.Errorf("%s: %w", wf.Path, err)
		return it, true
	}
	it.rep, it.viol = Analyze(f, wf.Path, FileOptions{Why: opt.Why, Limits: opt.Limits, Targets: opt.Targets, EachTarget: opt.EachTarget})
	return it, true
}
