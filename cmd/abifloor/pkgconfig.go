package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/abifloor/abifloor/ccwrap"
	"github.com/abifloor/abifloor/report"
)

const pkgConfigSynopsis = "--glibc VER|--target NAME [--cc CC] [--cache-dir DIR] -- PKG-CONFIG ARGS...\n       abifloor pkg-config --glibc VER|--target NAME [--cc CC] --library FILE..."

// runPkgConfig is pkg-config for a link through abifloor cc: a package
// whose libraries the link would refuse is not found (ccwrap.PkgConfig).
// With --library it answers for library files instead: exit 0 when the
// link would take every one, 1 naming those it would refuse (the CMake
// toolchain file of cc --install asks it).
func runPkgConfig(ctx context.Context, env *cmdEnv, args []string) int {
	o := ccwrap.Options{Name: "pkg-config", Getenv: env.getenv, Stdin: os.Stdin, Stdout: env.stdout, Stderr: env.stderr}
	fs := newFlags(env, "pkg-config", pkgConfigSynopsis)
	fs.StringVar(&o.Glibc, "glibc", "", "glibc release the link is for, e.g. 2.17")
	fs.StringVar(&o.Target, "target", "", "named target whose GLIBC limit the link is for")
	fs.StringVar(&o.CacheDir, "cache-dir", "", "cache (default $ABIFLOOR_CACHE, $XDG_CACHE_HOME/abifloor or ~/.cache/abifloor)")
	cc := fs.String("cc", "cc", "the C compiler of the link, whose library directories count")
	library := fs.Bool("library", false, "the arguments are library files: exit 1 naming those the link would refuse")
	say := func(format string, a ...any) { sayWrapper(env, "pkg-config", format, a...) }
	o.Warn = func(m string) { say("warning: %s", m) }
	own, after, dashes := splitDashes(args)
	pos, err := parseFlags(fs, own)
	if err != nil {
		return flagExit(err)
	}
	rest := after
	switch {
	case *library:
		rest = append(pos, after...)
		if len(rest) == 0 {
			return usageError(fs, "no library file named")
		}
	case len(pos) > 0:
		return usageError(fs, "unexpected %q before --", pos[0])
	case !dashes || len(after) == 0:
		return usageError(fs, "no pkg-config command after --")
	}
	w, err := ccwrap.New(o)
	switch {
	case errors.Is(err, ccwrap.ErrNoRelease):
		return usageError(fs, "name --glibc or --target")
	case err != nil:
		say("%v", flagged(err))
		return exitError
	}
	fail := func(err error) int { return wrapperFail(ctx, env, "pkg-config", err) }
	if *library {
		refused, err := w.Refuses(ctx, *cc, rest)
		if err != nil {
			return fail(err)
		}
		for _, h := range refused {
			fmt.Fprintf(env.stdout, "%s: %s\n", report.Clean(h.Arg), report.CleanLines(h.String()))
		}
		if len(refused) > 0 {
			return exitViolation
		}
		return exitOK
	}
	code, err := w.PkgConfig(ctx, *cc, rest)
	if err != nil {
		return fail(err)
	}
	return code
}
