package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/abifloor/abifloor/ccwrap"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/interrupt"
	"github.com/abifloor/abifloor/report"
)

// ccFallback runs a command line that names no command as the compiler's
// when $CC or $CXX is "abifloor cc ..." (ccwrap.FromEnv says why).
func ccFallback(ctx context.Context, env *cmdEnv, args []string) (int, bool) {
	cmd, cmdArgs, ok := ccwrap.FromEnv(os.Args[0], args, env.getenv)
	if !ok {
		return 0, false
	}
	return runCC(ctx, env, cmdArgs, cmd == "c++"), true
}

const ccSynopsis = "--glibc VER|--target NAME [--arch A] [--cache-dir DIR] [--dlopen LIB]... [-v] [--format text|json|github] -- CC ARGS...\n       abifloor %s --glibc VER|--target NAME --install DIR [-- CC]"

func runCC(ctx context.Context, env *cmdEnv, args []string, cxx bool) int {
	o := ccwrap.Options{Name: "cc", CXX: cxx, Getenv: env.getenv, Stdin: os.Stdin, Stdout: env.stdout, Stderr: env.stderr}
	if cxx {
		o.Name = "c++"
	}
	var install string
	fs := newFlags(env, o.Name, fmt.Sprintf(ccSynopsis, o.Name))
	fs.StringVar(&o.Glibc, "glibc", "", "glibc release to link against, e.g. 2.17")
	fs.StringVar(&o.Target, "target", "", "named target whose GLIBC limit to link against (see abifloor targets), e.g. manylinux_2_28")
	fs.StringVar(&o.Arch, "arch", "", "architecture: x86_64, aarch64, i686, s390x (default: the compiler's)")
	fs.StringVar(&o.CacheDir, "cache-dir", "", "stub cache (default $ABIFLOOR_CACHE, $XDG_CACHE_HOME/abifloor or ~/.cache/abifloor)")
	fs.StringVar(&install, "install", "", "write wrapper scripts DIR/cc and DIR/c++ that run this command, for tools that take one compiler path")
	fs.BoolVar(&o.Verbose, "v", false, "say what was decided and proven")
	format := fs.String("format", "text", "how the proof of a link is reported: text|json|github (json and github on stdout, which a link leaves empty)")
	if cxx {
		fs.StringVar(&o.CXXRuntime, "cxx-runtime", "", "shared or static: how to link libstdc++ and libgcc (default: shared when the target's runtime has every version the output needs, else static)")
	}
	var dlopen multiFlag
	fs.Var(&dlopen, "dlopen", "a library the program dlopen()s with RTLD_GLOBAL (repeatable): its lazily bound symbols must be defined there")
	say := func(format string, a ...any) { sayWrapper(env, o.Name, format, a...) }
	o.Warn = func(m string) { say("warning: %s", m) }
	fail := func(err error) int { return wrapperFail(ctx, env, o.Name, err) }
	own, ccArgs, dashes := splitDashes(args)
	missing := func() int {
		say("missing -- between abifloor's flags and the compiler")
		fmt.Fprintf(env.stderr, "usage: abifloor %s %s\n", o.Name, fmt.Sprintf(ccSynopsis, o.Name))
		return exitError
	}
	if !dashes {
		// abifloor cc --glibc 2.17 -o p p.c: the compiler's flags, not
		// abifloor's misspelt ones; only -h is answered.
		fs.SetOutput(io.Discard)
		err := fs.Parse(own)
		fs.SetOutput(env.stderr)
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return exitOK
		}
		if err != nil {
			return missing()
		}
	} else if err := parseOnly(fs, own); err != nil {
		return flagExit(err) // parseOnly named the flag meant
	}
	if !dashes && install == "" {
		return missing()
	}
	if fs.NArg() > 0 {
		say("unexpected %q before --", fs.Arg(0))
		fs.Usage()
		return exitError
	}
	o.Dlopen = dlopen
	if o.CXXRuntime != "" && o.CXXRuntime != "shared" && o.CXXRuntime != "static" {
		say("--cxx-runtime %q: want shared or static", o.CXXRuntime)
		return exitError
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON, report.GitHub)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	w, err := ccwrap.New(o)
	switch {
	case errors.Is(err, ccwrap.ErrNoRelease):
		fs.Usage()
		return exitError
	case err != nil:
		return fail(flagged(err))
	}
	if install != "" {
		var inst ccwrap.Installed
		self, err := ccwrap.SelfPath(os.Args[0])
		if err == nil {
			compiler := ""
			if len(ccArgs) > 0 {
				compiler = ccArgs[0]
			}
			inst, err = w.Install(self, install, compiler)
		}
		if err != nil {
			return fail(err)
		}
		writeInstalled(env, install, w.Limits()["GLIBC"], inst)
		return exitOK
	}
	if len(ccArgs) == 0 {
		say("no compiler after --")
		fs.Usage()
		return exitError
	}
	res, err := w.Run(ctx, ccArgs)
	if err != nil {
		return fail(err)
	}
	if f != report.Text {
		writeCCReport(env, f, o.Name, res)
	}
	if res.Code != 0 {
		// -v's notes say what was left out of a failed link too.
		if o.Verbose {
			for _, n := range res.Notes {
				say("%s", n)
			}
		}
		for _, e := range res.Explained {
			say("%s", e)
		}
		return res.Code
	}
	for _, e := range res.Explained {
		say("%s", e)
	}
	if o.Verbose || len(res.Notes) > 0 {
		for _, n := range res.Notes {
			say("%s", n)
		}
	}
	if res.Proof == nil {
		return exitOK
	}
	for _, m := range res.Proof.Warnings() {
		say("warning: %s", m)
	}
	if !res.Proof.OK() {
		for _, p := range res.Proof.Problems() {
			say("%s", p)
		}
		return exitViolation
	}
	if o.Verbose {
		say("%s: loads on glibc %s: proven (floor and loader)", res.Proof.Output, res.Proof.Glibc)
	}
	return exitOK
}

// writeInstalled says what --install wrote and how a build uses it.
func writeInstalled(env *cmdEnv, dir, release string, inst ccwrap.Installed) {
	fmt.Fprintf(env.stdout, "%s: cc and c++ link for glibc %s\n", report.Clean(dir), release)
	q := func(s string) string { return report.Clean(report.ShellQuote(s)) }
	line := "  configure: CC=" + q(inst.CC) + " CXX=" + q(inst.CXX)
	if inst.PkgConfig != "" {
		line += " PKG_CONFIG=" + q(inst.PkgConfig)
	}
	fmt.Fprintln(env.stdout, line)
	if inst.Toolchain != "" {
		fmt.Fprintln(env.stdout, "  cmake: -DCMAKE_TOOLCHAIN_FILE="+q(inst.Toolchain))
	}
	if inst.PkgConfig == "" {
		fmt.Fprintln(env.stdout, "  no pkg-config on PATH: none written")
	}
	if inst.Why != "" {
		fmt.Fprintln(env.stdout, "  "+report.Clean(inst.Why))
	}
}

// flagged names the flag a library error is about.
func flagged(err error) error {
	var re *ccwrap.ReleaseError
	if errors.As(err, &re) {
		return fmt.Errorf("--glibc: %w", err)
	}
	return err
}

// splitDashes splits args at the first "--": abifloor's flags before it,
// the compiler's command after.
func splitDashes(args []string) (own, cc []string, found bool) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, false
}

// ccReport is cc's --format json: what a link was proven against and
// what failed, for a tool. It is written only when the compiler linked,
// or failed a link with an explanation: a compile (-c, -E) is the
// compiler's business and its stdout is the compiler's.
type ccReport struct {
	Output string `json:"output,omitempty"`
	Glibc  string `json:"glibc,omitempty"`
	// Proven: the output loads on the target (floor and loader).
	Proven bool `json:"proven"`
	// CompilerExit is the compiler's exit code, when it failed.
	CompilerExit int      `json:"compiler_exit,omitempty"`
	Problems     []string `json:"problems"`
	Warnings     []string `json:"warnings"`
	Explained    []string `json:"explained"`
	// Removed: the proof failed and the output was removed.
	Removed bool `json:"removed,omitempty"`
}

func writeCCReport(env *cmdEnv, f report.Format, name string, res ccwrap.Result) {
	if res.Proof == nil && len(res.Explained) == 0 {
		return
	}
	r := ccReport{Problems: []string{}, Warnings: []string{}, Explained: append([]string{}, res.Explained...), CompilerExit: res.Code}
	if p := res.Proof; p != nil {
		r.Output, r.Glibc, r.Proven, r.Removed = p.Output, p.Glibc, p.OK(), p.Removed
		r.Problems = append(r.Problems, p.Problems()...)
		r.Warnings = append(r.Warnings, p.Warnings()...)
	}
	if f == report.JSON {
		report.WriteJSON(env.stdout, r)
		return
	}
	title := "abifloor " + name
	for _, m := range append(r.Problems, r.Explained...) {
		report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", File: r.Output, Title: title, Message: m})
	}
	for _, m := range r.Warnings {
		report.WriteAnnotation(env.stdout, report.Annotation{Level: "warning", File: r.Output, Title: title, Message: m})
	}
}

// sayWrapper writes a line of the compiler wrapper's commands (cc, c++,
// pkg-config) on stderr: "abifloor NAME: MESSAGE", the message cleaned.
func sayWrapper(env *cmdEnv, name, format string, a ...any) {
	fmt.Fprintf(env.stderr, "abifloor %s: %s\n", name, report.CleanLines(fmt.Sprintf(format, a...)))
}

// wrapperFail reports err, abifloor's own failure in cc, c++ or
// pkg-config, and returns the exit code. An interrupt fails every stub
// build in flight: one line says so, not one error per build with its
// temporary paths.
func wrapperFail(ctx context.Context, env *cmdEnv, name string, err error) int {
	var ie *interrupt.Error
	if errors.As(context.Cause(ctx), &ie) {
		sayIncomplete(env, name, ie.Error()+"; the cache is intact")
		return exitError
	}
	var ae *glibc.ArchError
	if errors.As(err, &ae) {
		sayWrapper(env, name, "%v, or --arch %s", err, ae.Have)
	} else {
		sayWrapper(env, name, "%v", err)
	}
	return exitError
}
