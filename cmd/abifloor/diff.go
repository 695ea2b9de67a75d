package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"

	"github.com/abifloor/abifloor/internal/input"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/report"
)

// diff exit codes are abidiff's bits, so scripts written for abidiff work.
const (
	diffError        = abidiff.ExitError
	diffUsage        = abidiff.ExitUsage
	diffChange       = abidiff.ExitChange
	diffIncompatible = abidiff.ExitIncompatible
)

func runDiff(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "diff", "OLD NEW [--format text|json|github|sarif|junit] [--strict] [--harmless] [--suppressions FILE]... [--debug-dir DIR] [--d1 DIR] [--d2 DIR] [--headers-dir1 DIR] [--headers-dir2 DIR] [--max-debug-size N]")
	format := fs.String("format", "text", "output `format`: text, json, github, sarif or junit")
	var supFiles multiFlag
	supUsage := "hide changes matching the rules in `FILE`: libabigail's suppression format ([suppress_function], [suppress_variable], [suppress_type]) or lines \"symbol REGEX\" / \"type REGEX\"; repeatable"
	fs.Var(&supFiles, "suppressions", supUsage)
	fs.Var(&supFiles, "suppr", "same as --suppressions `FILE` (abidiff's short name)")
	var dirs, dirs1, dirs2 multiFlag
	fs.Var(&dirs, "debug-dir", "separate debug info `DIR` for both inputs; repeatable")
	fs.Var(&dirs1, "debug-dir1", "separate debug info `DIR` for OLD only; repeatable")
	fs.Var(&dirs2, "debug-dir2", "separate debug info `DIR` for NEW only; repeatable")
	fs.Var(&dirs1, "d1", "same as --debug-dir1 `DIR` (abidiff's name)")
	fs.Var(&dirs2, "d2", "same as --debug-dir2 `DIR` (abidiff's name)")
	var hdirs1, hdirs2 multiFlag
	fs.Var(&hdirs1, "headers-dir1", "public headers of OLD under `DIR`: a change to a struct, union or enum they do not define is private, and hidden (abidiff's option); repeatable")
	fs.Var(&hdirs2, "headers-dir2", "public headers of NEW under `DIR`, as --headers-dir1; repeatable")
	fs.Var(&hdirs1, "hd1", "same as --headers-dir1 `DIR`")
	fs.Var(&hdirs2, "hd2", "same as --headers-dir2 `DIR`")
	strict := fs.Bool("strict", false, "set exit bit 8 (incompatible) for every break abifloor proves, not only for what abidiff calls incompatible")
	harmless := fs.Bool("harmless", false, "count the changes abidiff calls harmless (typedef spellings, enumerators added, members renamed in place) in the exit status, as abidiff --harmless does")
	maxDebug := sizeFlag(0)
	fs.Var(&maxDebug, "max-debug-size", "refuse a file whose compressed sections hold more than `N` bytes uncompressed (512M, 2G; default: 16 times the file's size plus 16 MiB, at most 512M)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if flagExit(err) == exitOK {
			return exitOK
		}
		return diffError | diffUsage
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit)
	if err != nil || len(pos) != 2 {
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor diff:", errText(err))
			return diffError | diffUsage
		}
		usageError(fs, "%s", missingArgs([]string{"OLD", "NEW"}, pos))
		return diffError | diffUsage
	}
	var sups []*abidiff.Suppressions
	for _, name := range supFiles {
		s, err := readSuppressions(name)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor diff:", errText(err))
			return diffError | diffUsage
		}
		for _, w := range s.Warnings {
			fmt.Fprintln(env.stderr, "abifloor diff: warning:", report.CleanLines(w))
		}
		sups = append(sups, s)
	}
	sup := abidiff.JoinSuppressions(sups...).WithFiles(pos[0], pos[1])
	// Two large DWARF trees are built and dropped once; collecting less
	// often saves a third of the time for a little more peak memory.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	opts := [2]abi.Options{{DebugDirs: append(dirs1, dirs...), MaxDebugSize: int64(maxDebug)}, {DebugDirs: append(dirs2, dirs...), MaxDebugSize: int64(maxDebug)}}
	var abis [2]*abi.ABI
	var errs [2]error
	done := make(chan int, 2)
	for i := range 2 {
		go func() {
			abis[i], _, errs[i] = abi.LoadArg(ctx, pos[i], opts[i], nil)
			done <- i
		}()
	}
	// The readers of DWARF do not stop halfway: an interrupted diff
	// leaves them behind and ends now. It is an error (abidiff's bit 1),
	// never a result.
	for range 2 {
		select {
		case <-done:
		case <-ctx.Done():
			fmt.Fprintln(env.stderr, "abifloor diff: incomplete: interrupted while reading the inputs; no result")
			return diffError
		}
	}
	for i, err := range errs {
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor diff:", cleanLines(err.Error())+limitHint(err))
			return diffError
		}
		if abis[i].DebugInfo == abi.DebugNone {
			fmt.Fprintf(env.stderr, "abifloor diff: %s: no debug info found: comparing symbols only\n", report.Clean(pos[i]))
		}
	}
	for i, a := range abis {
		if sup.SuppressesFile(pos[i], a.SOName) {
			fmt.Fprintf(env.stdout, "%s: not compared: a [suppress_file] section matches it\n", report.Clean(pos[i]))
			return 0
		}
	}
	if len(abis[0].Symbols) == 0 && len(abis[1].Symbols) == 0 && len(abis[0].Types) == 0 && len(abis[1].Types) == 0 && len(abis[0].Constants)+len(abis[1].Constants) == 0 {
		fmt.Fprintf(env.stderr, "abifloor diff: nothing to compare: neither %s nor %s defines a symbol or a type\n", report.Clean(pos[0]), report.Clean(pos[1]))
		return diffError
	}
	if len(hdirs1)+len(hdirs2) > 0 {
		var pub [2]map[string]bool
		for i, dirs := range [2][]string{hdirs1, hdirs2} {
			if len(dirs) == 0 {
				continue
			}
			if i == 1 && pub[0] != nil && slices.Equal(hdirs1, hdirs2) && abidiff.IsCXX(abis[0]) == abidiff.IsCXX(abis[1]) {
				pub[1] = pub[0] // the same headers, compiled once
				continue
			}
			p, warn, err := abidiff.PublicTypes(ctx, dirs, abis[i])
			if warn != "" {
				fmt.Fprintln(env.stderr, "abifloor diff: warning:", report.Clean(warn))
			}
			if err != nil {
				// Never hides a change: without the headers'
				// answer every type counts as public.
				fmt.Fprintf(env.stderr, "abifloor diff: warning: public headers of %s not read, every type counts as public: %s\n", report.Clean(pos[i]), cleanLines(err.Error()))
				continue
			}
			pub[i] = p
		}
		sup = sup.WithPublicTypes(pub[0], pub[1], abis[0], abis[1])
	}
	r := abidiff.Compare(abis[0], abis[1], sup)
	if ctx.Err() != nil {
		fmt.Fprintln(env.stderr, "abifloor diff: incomplete: interrupted; no result")
		return diffError
	}
	switch f {
	case report.JSON:
		err = report.WriteJSON(env.stdout, &r)
	case report.SARIF:
		err = r.WriteSARIF(env.stdout, buildVersion(), pos[1])
	case report.JUnit:
		err = r.WriteJUnit(env.stdout, pos[1])
	case report.GitHub:
		r.WriteGitHub(env.stdout, pos[1])
	default:
		err = r.WriteText(env.stdout, report.Painter{On: report.UseColor(env.tty, env.getenv)})
	}
	if err != nil {
		fmt.Fprintln(env.stderr, "abifloor diff:", errText(err))
		return diffError
	}
	return r.ExitWith(abidiff.ExitRules{Strict: *strict, Harmless: *harmless})
}

// readSuppressions parses one suppression file; it must be a regular file
// (a FIFO or device is refused, and does not block the open).
func readSuppressions(name string) (*abidiff.Suppressions, error) {
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
