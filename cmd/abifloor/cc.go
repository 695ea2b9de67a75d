package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/glibc"
)

func init() {
	register(&command{name: "cc", summary: "compile and link against a glibc floor, then prove it (--glibc 2.17 -- gcc ...)", run: runCC})
}

func runCC(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "cc", "--glibc VER [--arch A] [--cache-dir DIR] -- CC ARGS...")
	var o glibc.StubOptions
	var cacheDir string
	fs.StringVar(&o.Target, "glibc", "", "glibc release to link against, e.g. 2.17")
	fs.StringVar(&o.Arch, "arch", "", "architecture: x86_64, aarch64, i686, s390x (default: the host's)")
	fs.StringVar(&cacheDir, "cache-dir", "", "stub cache (default $ABIFLOOR_CACHE, $XDG_CACHE_HOME/abifloor or ~/.cache/abifloor)")
	ccArgs, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if o.Target == "" || len(ccArgs) == 0 {
		fs.Usage()
		return exitError
	}
	fail := func(err error) int {
		fmt.Fprintln(env.stderr, "abifloor cc:", err)
		return exitError
	}
	o.CC = ccArgs[0]
	a, err := o.Resolve(false)
	if err != nil {
		return fail(err)
	}
	if cacheDir == "" {
		if cacheDir, err = cache.DefaultDir(env.getenv); err != nil {
			return fail(err)
		}
	}
	c, err := cache.Open(cacheDir)
	if err != nil {
		return fail(err)
	}
	stubs, err := c.Get(ctx, o.Key(a), func(tmp, final string) error {
		so := o
		so.FinalDir = final
		return glibc.WriteStubs(ctx, tmp, so)
	})
	if err != nil {
		return fail(err)
	}
	pre := []string{"-L" + stubs}
	if init := filepath.Join(stubs, glibc.InitObject); linksExecutable(ccArgs[1:]) && exists(init) {
		pre = append(pre, "-Wl,--wrap=main", init)
	}
	cmd := exec.CommandContext(ctx, ccArgs[0], append(pre, ccArgs[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, env.stdout, env.stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		return fail(err)
	}
	out, link := linkOutput(ccArgs[1:])
	if !link {
		return exitOK
	}
	res := floor.Scan(ctx, []string{out}, floor.Options{Limits: floor.Limits{"GLIBC": o.Target}})
	for _, f := range res.Files {
		if f.Error != nil {
			return fail(fmt.Errorf("%s: %s", f.Path, f.ErrorMessage()))
		}
	}
	if len(res.Violations) > 0 {
		for _, v := range res.Violations {
			fmt.Fprintf(env.stderr, "abifloor cc: %s: needs %s %s, above the floor %s: %s\n",
				v.Path, v.Namespace, v.Required, v.Allowed, strings.Join(v.Symbols, " "))
		}
		return exitViolation
	}
	return exitOK
}

// linksExecutable reports whether a compiler command line links a program
// with the usual start files (not a shared library, object or static file).
func linksExecutable(args []string) bool {
	if _, link := linkOutput(args); !link {
		return false
	}
	for _, a := range args {
		switch a {
		case "-shared", "-r", "-static", "-nostartfiles", "-nostdlib":
			return false
		}
	}
	return true
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// linkOutput returns the file a compiler command line writes, and whether it
// links at all (-c, -S, -E and -M stop before the link editor).
func linkOutput(args []string) (string, bool) {
	out := "a.out"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "-S" || a == "-E" || a == "-M" || a == "-MM" || a == "-fsyntax-only" ||
			a == "--version" || a == "-v" || strings.HasPrefix(a, "-print-") || strings.HasPrefix(a, "-dump"):
			return "", false
		case a == "-o" && i+1 < len(args):
			out = args[i+1]
			i++
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			out = a[2:]
		}
	}
	return out, true
}
