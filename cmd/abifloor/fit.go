package main

import (
	"context"

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
	if format == report.JSON {
		report.WriteJSON(env.stdout, fit)
	} else {
		fit.WriteText(env.stdout)
	}
	switch {
	case fit.Verdict() == floor.OK:
		return exitOK
	case fit.Incomplete:
		env.sayf("fit", "%s", errText(fit.Err()))
	case res.Stats.Errors == 0:
		env.sayf("fit", "%s", noELF(paths))
	}
	return exitError
}
