package floor

import (
	"context"
	"errors"
	"fmt"
	pathpkg "path"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/walk"
)

// Artefacts (wheels, tarballs, npm packages, .deb, .rpm, images) are read
// in place by package artefact: a file is one when its first bytes say so,
// whatever its name, both named on the command line and met in a tree. Its
// ELF members are reported as "ARTEFACT!/path/in/it". An OCI layout
// directory is an artefact when named on the command line; met in a tree,
// it is a directory like any other.

// keep is the walker's filter: ELF files and artefacts.
func keep(head []byte) bool { return elfx.IsELF(head) || artefact.Sniff(head) != "" }

// scanArtefact reads the ELF members of the artefact at path. A file that
// is no artefact, or compressed text (a changelog.gz), is dropped.
//
// An artefact met inside a directory (inTree) that turns out malformed,
// truncated, or with a member name or link leaving it is no error unless opt.Strict: a tree holds archives nobody
// means to ship (Go's own test archives under $GOROOT/src/archive), so it
// is reported in Result.Skipped.
func scanArtefact(ctx context.Context, path string, head []byte, inTree bool, opt Options) (item, bool) {
	if artefact.Detect(head) == "" {
		return item{}, false
	}
	it, ok := readArtefact(ctx, path, opt)
	if inTree && !opt.Strict {
		kept := it.members[:0]
		for _, m := range it.members {
			var more *moreUnreadable
			if errors.As(m.rep.Error, &more) {
				errs, bad := more.split()
				if bad != nil {
					it.skipped = append(it.skipped, FileReport{Path: m.rep.Path, Error: bad})
				}
				if errs != nil {
					kept = append(kept, item{rep: FileReport{Path: m.rep.Path, Error: errs}})
				}
				continue
			}
			if m.rep.Error != nil && malformed(m.rep.Error) {
				it.skipped = append(it.skipped, m.rep)
				continue
			}
			kept = append(kept, m)
		}
		it.members = kept
		if len(kept) == 0 {
			it.members = nil
			it.rep = FileReport{}
		}
	}
	return it, ok
}

// maxUnreadable is how many members of one artefact that could not be
// read are reported each: past it they are counted, in one line ("and N
// more unreadable members"), and in the run's errors. An 821 KB .tar.gz
// of 100,000 truncated ELF members made 92 MB of SARIF and 283 MB of
// memory, one report each.
const maxUnreadable = limits.Unreadable

// moreUnreadable is the error of the line that stands for an artefact's
// unreadable members past maxUnreadable: n of them, malformed of which
// are malformed (see malformed), elf ELF files (counted in Stats.ELF).
type moreUnreadable struct{ n, malformed, elf int64 }

func (e *moreUnreadable) Error() string {
	return fmt.Sprintf("and %d more unreadable members", e.n)
}

func (e *moreUnreadable) count(r FileReport) {
	e.n++
	if malformed(r.Error) {
		e.malformed++
	}
	if r.Arch != "" {
		e.elf++
	}
}

// split is the summary of the members that are not malformed, and of
// those that are (either nil when it stands for none).
func (e *moreUnreadable) split() (errs, bad *moreUnreadable) {
	if e.n > e.malformed {
		errs = &moreUnreadable{n: e.n - e.malformed, elf: e.elf}
	}
	if e.malformed > 0 {
		bad = &moreUnreadable{n: e.malformed}
	}
	return errs, bad
}

// unreadableCount is how many unreadable files a report's error stands
// for, and how many ELF files among them.
func unreadableCount(r FileReport) (n, elf int64) {
	if r.Error == nil {
		return 1, 1 // without the errors.As below, which allocates
	}
	var more *moreUnreadable
	if errors.As(r.Error, &more) {
		return more.n, more.elf
	}
	if r.Arch != "" || r.Error == nil {
		elf = 1
	}
	return 1, elf
}

// malformed tells the errors of an artefact (or member) that is broken in
// itself: bad format, cut short, a name or link that leaves it.
func malformed(err error) bool {
	for _, e := range []error{artefact.ErrFormat, artefact.ErrTruncated, artefact.ErrLinkOut, artefact.ErrUnsafeName} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func readArtefact(ctx context.Context, path string, opt Options) (item, bool) {
	it := item{rep: FileReport{Path: path}}
	// Claims are checked by check, not scan or fit.
	checking := opt.Claims || (!opt.EachTarget && (opt.Limits != nil || len(opt.Targets) > 0))
	var cl claims
	fopt := opt.fileOptions()
	if checking {
		cl.resolve(path, opt.Targets) // a wheel's tags are in its name
		fopt.Claimed = cl.targets
	}
	aopt := artefact.Options{Budget: opt.budget}
	size := artefact.SizeOf(path)
	hold, holdWhy := artefact.HoldLimit(size), artefact.HoldWhy(size)
	if opt.ArtefactProgress != nil {
		aopt.Progress = func(m string, read, total int64) { opt.ArtefactProgress(path, m, read, total) }
	}
	if checking {
		aopt.Want, aopt.Control = wantClaim, &cl.control
	}
	var more moreUnreadable
	unreadable := 0
	add := func(mi item) {
		if mi.rep.Error == nil {
			it.members = append(it.members, mi)
			return
		}
		if unreadable++; unreadable <= maxUnreadable {
			it.members = append(it.members, mi)
			return
		}
		more.count(mi.rep)
	}
	err := artefact.Walk(ctx, path, aopt, func(m *artefact.Member) error {
		it.files++
		if opt.member != nil {
			opt.member(m.Content != nil && m.Err == nil)
		}
		// Most members (a jar's classes) are neither: their name is
		// not joined.
		switch {
		case m.Err != nil:
			add(item{rep: FileReport{Path: artefact.Join(path, m.Name), Error: m.Err}})
		case m.Data != nil && wantClaim(m.Name) && !elfx.IsELF(m.Data):
			cl.pkgJSON = m.Data
		case m.Content != nil:
			name := artefact.Join(path, m.Name)
			mi := item{rep: FileReport{Path: name}}
			f, err := elfx.NewFile(m.Content, m.Size)
			if err != nil {
				mi.rep.Error = err
			} else {
				f.LimitTables(hold, holdWhy)
				mo := fopt
				// A package's control comes before its files: a file
				// held to its libc claim is read with its symbols, so
				// a broken claim names them.
				mo.Why = mo.Why || (checking && cl.control != "")
				mi.rep, mi.viol = Analyze(f, name, mo)
				if wantSites(opt, mi.viol, opt.Why) || (opt.Sites && checking && cl.broken(path, opt.Targets, mi.rep)) {
					mi.sites = locate(f, "", mi.rep, mi.viol, mo.Why, opt)
				}
			}
			add(mi)
		}
		return nil
	})
	switch {
	case errors.Is(err, artefact.ErrNotArtefact):
		return item{}, false
	case err != nil:
		// The artefact as a whole: its members read before the error
		// are still reported.
		it.members = append(it.members, item{rep: FileReport{Path: path, Error: err}})
	}
	if checking {
		cl.resolve(path, opt.Targets)
		for i := range it.members {
			if m := &it.members[i]; m.rep.Error == nil {
				m.viol = append(m.viol, cl.violations(m.rep)...)
			}
		}
		it.claims = cl.checks(path, it.members)
		if !opt.Why {
			for i := range it.members {
				it.members[i].rep.Why = nil
			}
		}
	}
	sort.SliceStable(it.members, func(i, j int) bool { return it.members[i].rep.Path < it.members[j].rep.Path })
	if more.n > 0 {
		// After the members it stands for.
		it.members = append(it.members, item{rep: FileReport{Path: path, Error: &more}})
	}
	if len(it.members) == 0 {
		// An artefact without ELF members counts its files, and shows
		// nothing.
		return item{files: it.files, claims: it.claims, skipped: it.skipped}, true
	}
	return it, true
}

// flatten lists the reports of files and of artefacts' members in order.
func flatten(items []walk.Item[item]) []item {
	out := make([]item, 0, len(items))
	for _, x := range items {
		it := x.Value
		if it.members == nil {
			out = append(out, it)
			continue
		}
		out = append(out, item{files: it.files, claims: it.claims, skipped: it.skipped})
		out = append(out, it.members...)
	}
	return out
}

// libcName matches the C library's file names: libc.so.6, and libc-2.31.so
// in releases before 2.34, where libc.so.6 is a link to it.
var libcName = lazyre.New(`^libc(\.so\.6|-[0-9.]+\.so)$`)

// ImageGlibc returns the glibc release of a container image (an OCI
// layout or a docker-save tarball): the highest GLIBC_x version its
// libc.so.6 defines, as its layers leave it. check --image takes it as
// the GLIBC limit: a binary copied into the image must load with it.
func ImageGlibc(ctx context.Context, img string) (string, error) {
	best := ""
	err := artefact.Walk(ctx, img, artefact.Options{}, func(m *artefact.Member) error {
		if m.Content == nil || !libcName().MatchString(pathpkg.Base(m.Name)) {
			return nil
		}
		f, err := elfx.NewFile(m.Content, m.Size)
		if err != nil {
			return nil
		}
		defs, err := f.VersionDefs()
		if err != nil {
			return nil
		}
		for _, d := range defs {
			if v, ok := strings.CutPrefix(d.Name, "GLIBC_"); ok && symver.Valid(v) && (best == "" || symver.Compare(v, best) > 0) {
				best = v
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if best == "" {
		return "", &input.FileError{Path: img, Err: errors.New("no glibc in the image (no libc.so.6 defining GLIBC versions)")}
	}
	return best, nil
}
