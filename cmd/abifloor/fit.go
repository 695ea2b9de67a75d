package main

import (
	"context"
	"fmt"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/report"
)

func runFit(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "fit", "[--format text|json] [--demangle] [--follow] [--exclude PATTERN]... PATH...")
	var sf scanFlags
	fs.Var(&sf.exclude, "exclude", "skip files and directories whose name or path matches this pattern (repeatable)")
	fs.StringVar(&sf.format, "format", "text", "output format: text|json")
	fs.BoolVar(&sf.follow, "follow", false, "follow symbolic links inside directories")
	fs.IntVar(&sf.jobs, "j", 0, "files read in parallel (default 2×CPUs)")
	fs.BoolVar(&sf.strict, "strict", false, "a malformed artefact met inside a directory is an error (by default a warning)")
	dm := fs.Bool("demangle", false, "write C++ symbol names demangled (std::__throw_bad_array_new_length())")
	paths, format, code := parsePathsTextJSON(env, fs, args, &sf.format)
	if code >= 0 {
		return code
	}
	sf.demangle = *dm
	ts := floor.FitTargets()
	opt, done := scanOptions(env, sf)
	opt.Targets, opt.EachTarget = ts, true
	res := floor.Scan(ctx, paths, opt)
	done()
	demangleResult(res, sf)
	fit := floor.Fit(res, ts)
	if fit.Incomplete {
		// The files not reached could block any tag: a tree verdict over
		// the files seen so far is no verdict.
		fit.Tree = []floor.TreeFit{}
	}
	if format == report.JSON {
		report.WriteJSON(env.stdout, fit)
	} else {
		fit.WriteText(env.stdout)
	}
	switch {
	case res.Incomplete:
		fmt.Fprintf(env.stderr, "abifloor fit: %s\n", errText(res.Err))
		return exitError
	case res.Stats.Errors > 0:
		return exitError
	case res.Stats.ELF == 0:
		fmt.Fprintf(env.stderr, "abifloor fit: %s\n", noELF(paths))
		return exitError
	}
	return exitOK
}

// demangleAll rewrites references in place with their names demangled;
// names that are not mangled stay as they are.
func demangleAll(refs []floor.Ref) {
	for i := range refs {
		if d := abiread.Demangle(refs[i].Name); d != "" {
			refs[i].Name = d
		}
	}
}
