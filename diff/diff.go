// Package diff does what `abifloor diff OLD NEW` does, for a program: it
// reads both inputs (a library, an object file, ABI JSON, or a member of
// an artefact: pkg.deb!/usr/lib/libx.so.1) at once, honours the
// suppression files' [suppress_file] sections and the public headers of
// each side (abidiff's --headers-dir1/--headers-dir2), compares the two
// ABIs with package abidiff, and returns a Result that carries the
// verdict, the documented JSON form and abidiff's exit bits.
//
// Package abidiff compares two ABIs already in memory and knows no file;
// this package is where files, artefacts, compilers and the context meet.
package diff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abimember"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/report"
)

// Options say how to read and compare the two inputs.
type Options struct {
	// Suppressions hide changes; nil hides none. ReadSuppressions reads
	// one file; abidiff.JoinSuppressions joins several.
	Suppressions *abidiff.Suppressions
	// Read are the reader options of the old and the new input: their
	// separate debug directories and decompression bound.
	Read [2]abiread.Options
	// Headers are the directories of the public headers of the old and
	// the new input. A change to a struct, union or enum no public
	// header defines is private, and hidden. None: every type is public.
	Headers [2][]string
	// Rules say which changes set which of abidiff's exit bits.
	Rules abidiff.ExitRules
	// Note, when set, is called with each note as it arises, in the
	// order Result.Notes lists them.
	Note func(string)
}

// Result is one comparison: its verdict (Report), what it could not do
// (Notes) and its exit bits (Exit).
type Result struct {
	// Old and New are the inputs as they were named.
	Old, New string
	// Skipped is the input a [suppress_file] section matches: nothing
	// was compared, and the result is a success.
	Skipped string
	// Notes say what was read only in part: an input without debug
	// info, public headers that could not be read. Each is one line,
	// its names already cleaned (report.Clean); a warning starts with
	// "warning: ".
	Notes []string
	// Report is abidiff's comparison (empty when Skipped).
	Report abidiff.Report
	// Rules are the exit rules the result was asked for.
	Rules abidiff.ExitRules
}

// Exit is abidiff's exit status for r: 0 for no change (or a skipped
// comparison), abidiff.ExitChange for a change, with
// abidiff.ExitIncompatible for an incompatible one (under r.Rules).
func (r *Result) Exit() int {
	if r.Skipped != "" {
		return 0
	}
	return r.Report.ExitWith(r.Rules)
}

// MarshalJSON writes the report's JSON (docs/abi-json.md, "diff --format
// json").
func (r *Result) MarshalJSON() ([]byte, error) { return r.Report.MarshalJSON() }

// Write writes r in format f (report.Text, JSON, GitHub, SARIF or JUnit)
// as `abifloor diff` prints it; version names the tool in SARIF, and p
// paints text. A skipped comparison is one line in every format.
func (r *Result) Write(w io.Writer, f report.Format, version string, p report.Painter) error {
	if r.Skipped != "" {
		_, err := fmt.Fprintf(w, "%s: not compared: a [suppress_file] section matches it\n", report.Clean(r.Skipped))
		return err
	}
	switch f {
	case report.JSON:
		return report.WriteJSON(w, r)
	case report.SARIF:
		return r.Report.WriteSARIF(w, version, r.New)
	case report.JUnit:
		return r.Report.WriteJUnit(w, r.New)
	case report.GitHub:
		r.Report.WriteGitHub(w, r.New)
		return nil
	}
	return r.Report.WriteText(w, p)
}

// IncompleteError is returned when the context ends before the result:
// a comparison cut short decides nothing.
type IncompleteError struct {
	// Reading is set when the inputs were still being read.
	Reading bool
	// Err is the context's error.
	Err error
}

func (e *IncompleteError) Error() string {
	if e.Reading {
		return "incomplete: interrupted while reading the inputs; no result"
	}
	return "incomplete: interrupted; no result"
}

func (e *IncompleteError) Unwrap() error { return e.Err }

// ErrNothingToCompare is returned (wrapped, naming the inputs) when
// neither input defines a symbol, a type or a constant.
var ErrNothingToCompare = errors.New("nothing to compare")

// Run reads old and new at once and compares them under opt. It waits
// for both readers, which stop at the next compilation unit once ctx is
// done, and then returns an *IncompleteError.
func Run(ctx context.Context, old, new string, opt Options) (*Result, error) {
	res := &Result{Old: old, New: new, Rules: opt.Rules}
	note := func(s string) {
		res.Notes = append(res.Notes, s)
		if opt.Note != nil {
			opt.Note(s)
		}
	}
	paths := [2]string{old, new}
	sup := opt.Suppressions.WithFiles(old, new)
	var abis [2]*abi.ABI
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			abis[i], _, errs[i] = abimember.LoadArg(ctx, paths[i], opt.Read[i], nil)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, &IncompleteError{Reading: true, Err: err}
	}
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if abis[i].DebugInfo == abi.DebugNone {
			note(fmt.Sprintf("%s: no debug info found: comparing symbols only", report.Clean(paths[i])))
		}
	}
	for i, a := range abis {
		if sup.SuppressesFile(paths[i], a.SOName) {
			res.Skipped = paths[i]
			return res, nil
		}
	}
	if empty(abis[0]) && empty(abis[1]) {
		return nil, fmt.Errorf("%w: neither %s nor %s defines a symbol or a type", ErrNothingToCompare, report.Clean(old), report.Clean(new))
	}
	if len(opt.Headers[0])+len(opt.Headers[1]) > 0 {
		var pub [2]map[string]bool
		for i, dirs := range opt.Headers {
			if len(dirs) == 0 {
				continue
			}
			if i == 1 && pub[0] != nil && slices.Equal(opt.Headers[0], opt.Headers[1]) && isCXX(abis[0]) == isCXX(abis[1]) {
				pub[1] = pub[0] // the same headers, compiled once
				continue
			}
			p, warn, err := publicTypes(ctx, dirs, abis[i])
			if warn != "" {
				note("warning: " + report.Clean(warn))
			}
			if err != nil {
				// Never hides a change: without the headers'
				// answer every type counts as public.
				note(fmt.Sprintf("warning: public headers of %s not read, every type counts as public: %s", report.Clean(paths[i]), report.CleanLines(err.Error())))
				continue
			}
			pub[i] = p
		}
		sup = sup.WithPublicTypes(pub[0], pub[1], abis[0], abis[1])
	}
	r, err := abidiff.Compare(ctx, abis[0], abis[1], sup, abiread.Demangler{})
	if err != nil {
		return nil, &IncompleteError{Err: err}
	}
	res.Report = r
	return res, nil
}

// empty reports whether a defines no symbol, type or constant.
func empty(a *abi.ABI) bool {
	return len(a.Symbols) == 0 && len(a.Types) == 0 && len(a.Constants) == 0
}

// ReadSuppressions parses one suppression file (libabigail's format or
// abifloor's "symbol REGEX" lines). It must be a regular file: a FIFO or
// a device is refused, and does not block the open.
func ReadSuppressions(name string) (*abidiff.Suppressions, error) {
	in, err := input.Open(name, []byte{}, nil) // no head: the parser reads it all
	if errors.Is(err, input.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", name, input.ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return abidiff.ParseSuppressions(name, io.NewSectionReader(in.FD, 0, in.Size))
}
