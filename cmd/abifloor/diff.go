package main

import (
	"context"
	"runtime/debug"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/diff"
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
			env.say("diff", errText(err))
			return diffError | diffUsage
		}
		usageError(fs, "%s", missingArgs([]string{"OLD", "NEW"}, pos))
		return diffError | diffUsage
	}
	var sups []*abidiff.Suppressions
	for _, name := range supFiles {
		s, err := diff.ReadSuppressions(name)
		if err != nil {
			env.say("diff", errText(err))
			return diffError | diffUsage
		}
		for _, w := range s.Warnings {
			env.say("diff", "warning:", report.CleanLines(w))
		}
		sups = append(sups, s)
	}
	// Two large DWARF trees are built and dropped once; collecting less
	// often saves a third of the time for a little more peak memory.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	opt := diff.Options{
		Suppressions: abidiff.JoinSuppressions(sups...),
		Read: [2]abiread.Options{
			{DebugDirs: append(dirs1, dirs...), MaxDebugSize: int64(maxDebug)},
			{DebugDirs: append(dirs2, dirs...), MaxDebugSize: int64(maxDebug)},
		},
		Headers: [2][]string{hdirs1, hdirs2},
		Rules:   abidiff.ExitRules{Strict: *strict, Harmless: *harmless},
		Note:    func(s string) { env.say("diff", s) },
	}
	r, err := diff.Run(ctx, pos[0], pos[1], opt)
	if err != nil {
		env.say("diff", cleanLines(err.Error())+limitHint(err))
		return diffError
	}
	if err := r.Write(env.stdout, f, buildVersion(), report.Painter{On: report.UseColor(env.tty, env.getenv)}); err != nil {
		env.say("diff", errText(err))
		return diffError
	}
	return r.Exit()
}
