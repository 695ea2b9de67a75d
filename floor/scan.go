package floor

import (
	"context"
	"errors"
	"os"
	"runtime"
	"sync/atomic"

	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/targets"
	"github.com/abifloor/abifloor/walk"
)

// Options tune a Scan.
type Options struct {
	Follow  bool     // follow symbolic links inside trees
	Exclude []string // patterns of names or paths to skip inside trees
	Why     bool     // name the symbols behind every floor
	Limits  Limits   // when set, report violations (check)
	// Targets, when set, are checked too: libc, a policy's rules, and a
	// distro's limits (folded into Limits, naming the distro).
	Targets []targets.Target
	// EachTarget checks each target separately (fit).
	EachTarget bool
	// Claims holds an artefact's members to what it claims (Check sets
	// it); so do Limits or Targets without EachTarget.
	Claims bool
	// Strict makes a malformed artefact met inside a directory an error
	// (by default it is in Result.Skipped).
	Strict  bool
	sources map[string]string // what set each limit (Check)
	folded  bool              // Limits hold the distro targets' limits
	Workers int               // parallel file readers (default 2×GOMAXPROCS)
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
	// Sites finds, in each file with a violation (and with Why in
	// every file), where it uses the symbols behind it, and the cause
	// of each (Attribution); DebugDirs are searched for separate debug
	// files (sites.Options).
	Sites     bool
	DebugDirs []string
	member    func(isELF bool) // set by Scan: a member of an artefact was read
	budget    *artefact.Budget // set by Scan: the run's decompression allowance, shared by its workers
}

// Result is a whole scan. Field names are part of the JSON contract.
type Result struct {
	Files []FileReport `json:"files"`
	// Floors is the tree-wide floor: the highest of every file's.
	Floors     map[string]string `json:"floors"`
	Violations []Violation       `json:"violations,omitempty"`
	// Advisories are what the loader's checks of a target cannot decide
	// from the tree and the target's base system (RuleNotInBase,
	// RuleLazyUndefined): warnings that do not fail a check, violations
	// under Options.Strict.
	Advisories []Violation `json:"advisories,omitempty"`
	// Claims are the claims of the artefacts read, each with whether it
	// held (checked only when claims are, see Options.Claims).
	Claims []ClaimCheck `json:"claims,omitempty"`
	// Skipped are the artefacts met inside directories that turned out
	// malformed or truncated (and their members that did): warnings, not
	// errors, unless Options.Strict.
	Skipped []FileReport `json:"skipped,omitempty"`
	Stats   Stats        `json:"stats"`
	// Incomplete is set when the scan was cut short (its context was
	// cancelled): the files, floors and violations are only those read
	// before, so the result proves nothing. Err says how far it got.
	Incomplete bool  `json:"incomplete,omitempty"`
	Err        error `json:"-"`
	// SourceRoot is the directory the reports write source paths
	// relative to (the checkout: GitHub's workspace, or the working
	// directory); set by the caller before writing. Sites elsewhere keep
	// their paths, and GitHub and SARIF locate them at the binary.
	SourceRoot string `json:"-"`
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
	claims  []ClaimCheck
	skipped []FileReport
	// sites is what attribution found while the file was open.
	sites *located
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
	opt = opt.prepared()
	kept := keep
	if opt.NoTreeArtefacts {
		kept = elfx.IsELF
	}
	// OCI layouts named as roots are read as one artefact each, by a
	// worker (scanOne).
	files := walk.Walk(ctx, paths, walk.Options{Follow: opt.Follow, Exclude: opt.Exclude, Keep: kept, HeadSize: 4096, Claim: artefact.IsLayout}, &ws)
	items := walk.Process(ctx, files, opt.Workers, func() func(walk.File) (item, bool) {
		head := make([]byte, headSize)
		scratch := elfx.NewScratch()
		return func(wf walk.File) (item, bool) {
			it, isELF := scanOne(ctx, wf, head, scratch, opt)
			if isELF {
				elfs.Add(1)
			}
			if opt.Progress != nil && done.Add(1)%256 == 0 {
				opt.Progress(ws.Files.Load()+members.Load(), elfs.Load()+memberELF.Load())
			}
			return it, isELF
		}
	})
	return opt.collect(ctx, items, &ws)
}

// ScanFile is Scan of the one file at path, read on the calling
// goroutine: no walker and no workers, whose goroutines, channels and
// stacks cost a fresh process more than the reading of a small file (a
// compiler wrapper's proof of its output, once per link), and no
// elfx.Scratch, whose name table is made for thousands of files. A path
// that is not a regular file (a directory, a symbolic link) is Scan's.
func ScanFile(ctx context.Context, path string, opt Options) *Result {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Scan(ctx, []string{path}, opt)
	}
	opt = opt.prepared()
	var ws walk.Stats
	ws.Files.Store(1)
	var items []walk.Item[item]
	// Cut short, it reads nothing, as Scan's workers then read nothing.
	if ctx.Err() == nil {
		if it, keep := scanOne(ctx, walk.File{Path: path}, make([]byte, headSize), nil, opt); keep {
			items = append(items, walk.Item[item]{Path: path, Value: it})
		}
	}
	return opt.collect(ctx, items, &ws)
}

// prepared is opt as a scan reads its files with it: the artefacts'
// memory budget made, and the distro targets' limits folded once.
func (opt Options) prepared() Options {
	if opt.budget == nil {
		opt.budget = artefact.NewBudget(0)
	}
	fo := opt.fileOptions()
	opt.Limits, opt.sources, opt.folded = fo.Limits, fo.Sources, true
	return opt
}

// collect makes the Result of the items a scan read, in their order,
// with what the walker counted in ws.
func (opt Options) collect(ctx context.Context, items []walk.Item[item], ws *walk.Stats) *Result {
	res := &Result{Files: make([]FileReport, 0, len(items)), Floors: map[string]string{}}
	// A file with several names is reported under the first in output
	// order, whichever worker happened to read it first.
	links := map[hardLink]bool{}
	cut := ctx.Err()
	for _, it := range flatten(items) {
		res.Stats.Files += it.files
		res.Claims = append(res.Claims, it.claims...)
		res.Skipped = append(res.Skipped, it.skipped...)
		if cut != nil && it.rep.Error != nil && errors.Is(it.rep.Error, cut) {
			continue // not an error of the file: the scan was stopped
		}
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
		it.sites.attach(&it.rep, it.viol, opt.Why)
		res.Files = append(res.Files, it.rep)
		res.Violations = append(res.Violations, it.viol...)
		n, elf := unreadableCount(it.rep)
		if it.rep.Error != nil {
			res.Stats.Errors += n
		}
		if it.rep.Floors != nil {
			merge(res.Floors, it.rep.Floors)
		}
		res.Stats.ELF += elf
	}
	if len(res.Violations) > 0 || !opt.EachTarget && len(opt.Targets) > 0 {
		// Only a violation, or a target's base system, asks what the tree
		// ships; the index costs every file.
		sh := newShippedIndex(res.Files)
		res.Violations = dropMetByShipped(sh, dropShipped(sh, res.Violations))
		res.Violations, res.Advisories = splitAdvisories(res.Violations)
		if !opt.EachTarget {
			res.Advisories = append(res.Advisories, notInBase(sh, res.Files, opt.Targets)...)
		}
	}
	res.Stats.Files += ws.Files.Load()
	res.Stats.Symlinks = ws.Symlinks.Load()
	res.Stats.Special = ws.Special.Load()
	res.Stats.HardDups += ws.Dups.Load()
	res.Stats.Excluded = ws.Excluded.Load()
	if cut != nil {
		res.Incomplete, res.Err = true, incomplete(ctx, res.Stats.Files)
	}
	return res
}

// headSize is the first read of a file named on the command line: the
// ELF header, the program headers, PT_INTERP and, in most small files,
// the string and version tables too.
const headSize = 8 << 10

// fileOptions are the options of Analyze for a file of the scan, the
// distro targets folded once.
func (opt Options) fileOptions() FileOptions {
	return FileOptions{Why: opt.Why, Limits: opt.Limits, Sources: opt.sources, Targets: opt.Targets, EachTarget: opt.EachTarget, folded: opt.folded}.fold()
}

// scanOne reads one file. Walk errors and read errors of files that might
// be ELF are reported (isELF true, so they are listed); files that are not
// ELF are dropped.
func scanOne(ctx context.Context, wf walk.File, buf []byte, scratch *elfx.Scratch, opt Options) (item, bool) {
	if wf.Dir {
		return readArtefact(ctx, wf.Path, opt) // a layout: walk.Options.Claim
	}
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
		// The walker read the head of a file met in a tree.
		return scanArtefact(ctx, wf.Path, in.Head, wf.Head != nil, opt)
	}
	if in.Links > 1 {
		it.link = hardLink{in.Dev, in.Ino}
	}
	f, err := elfx.NewFileScratch(in.FD, in.Size, in.Head, scratch)
	if err != nil {
		it.rep.Error = &input.FileError{Path: wf.Path, Err: err}
		return it, true
	}
	it.rep, it.viol = Analyze(f, wf.Path, opt.fileOptions())
	if wantSites(opt, it.viol, opt.Why) {
		// A file's violations are final here (an artefact member's
		// wait for its claims): its sites are attached on the worker,
		// and only what the report shows of them is kept.
		locate(f, wf.Path, it.rep, it.viol, opt.Why, opt).attach(&it.rep, it.viol, opt.Why)
	}
	return it, true
}
