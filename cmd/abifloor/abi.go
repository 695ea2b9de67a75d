package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abimember"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abi/abitext"
	"github.com/abifloor/abifloor/report"
)

func runABI(ctx context.Context, env *cmdEnv, args []string) int {
	if len(args) == 0 || (args[0] != "dump" && args[0] != "headers") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return helpCommand(ctx, env, []string{"abi"})
		}
		if len(args) == 0 {
			return missingSub(env, "abi")
		}
		env.sayf("abi", "unknown sub-command %q%s", args[0], didYouMean(args[0], subcommands["abi"], ""))
		abiUsage(env.stderr)
		return exitError
	}
	if args[0] == "dump" {
		return runABIDump(ctx, env, args[1:])
	}
	return runABIHeaders(ctx, env, args[1:])
}

func abiUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: abifloor abi dump FILE|ARTEFACT[!/MEMBER] [--debug-dir DIR] [--max-debug-size N] [--format text|json]")
	fmt.Fprintln(w, "       abifloor abi headers -I DIR... --header FILE... --type NAME_OR_GLOB... [--const NAME...] [--cc CC] [--target-arch A] [--timeout D] [--max-memory N] [--format text|json]")
}

func runABIDump(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "abi dump", "FILE|ARTEFACT[!/MEMBER] [--debug-dir DIR] [--max-debug-size N] [--format text|json]")
	var dirs multiFlag
	fs.Var(&dirs, "debug-dir", "look for separate debug info under `DIR` (by build ID and .gnu_debuglink); repeatable")
	maxDebug := sizeFlag(0)
	fs.Var(&maxDebug, "max-debug-size", "refuse a file whose compressed sections hold more than `N` bytes uncompressed (512M, 2G; default: 16 times the file's size plus 16 MiB, at most 512M)")
	format := fs.String("format", "text", "output `format`: text or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON)
	if err != nil || len(pos) != 1 {
		if err != nil {
			env.say("abi dump", errText(err))
			return exitError
		}
		return usageError(fs, "%s", missingArgs([]string{"FILE"}, pos))
	}
	show, done := progress(env)
	// The DWARF readers do not stop halfway: an interrupted dump leaves
	// the load behind and ends now, exit 2, printing no ABI.
	var (
		a    *abi.ABI
		name string
	)
	loaded := make(chan struct{})
	go func() {
		a, name, err = abimember.LoadArg(ctx, pos[0], abiread.Options{DebugDirs: dirs, MaxDebugSize: int64(maxDebug)}, showArtefacts(show))
		close(loaded)
	}()
	select {
	case <-loaded:
	case <-ctx.Done():
		done()
		env.sayf("abi dump", "incomplete: interrupted while reading %s; no ABI written", report.Clean(pos[0]))
		return exitError
	}
	done()
	if err == nil && ctx.Err() != nil {
		env.sayf("abi dump", "incomplete: interrupted while reading %s; no ABI written", report.Clean(pos[0]))
		return exitError
	}
	if err != nil {
		env.say("abi dump", cleanLines(err.Error())+limitHint(err))
		return exitError
	}
	if a.DebugInfo == abi.DebugNone {
		env.sayf("abi dump", "%s: no debug info found (in the file, by build ID or .gnu_debuglink): symbols only", report.Clean(name))
	}
	return writeABI(env, f, a)
}

func writeABI(env *cmdEnv, f report.Format, a *abi.ABI) int {
	var err error
	if f == report.JSON {
		err = report.WriteJSON(env.stdout, a)
	} else {
		err = abitext.WriteText(env.stdout, a)
	}
	if err != nil {
		env.say("abi", errText(err))
		return exitError
	}
	return exitOK
}

func runABIHeaders(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "abi headers", "-I DIR... --header FILE... --type NAME_OR_GLOB... [--const NAME...] [--cc CC] [--target-arch A] [--timeout D] [--max-memory N]")
	var opt abiread.HeaderOptions
	var inc, hdr, typ, cst, def multiFlag
	fs.Var(&inc, "I", "add `DIR` to the include path; repeatable")
	fs.Var(&hdr, "header", "include `FILE`; repeatable, in order")
	fs.Var(&typ, "type", "keep the type `NAME` or glob (struct nv*, NVOS*_PARAMETERS); repeatable")
	fs.Var(&cst, "const", "evaluate the integer macro or constant `NAME`; repeatable")
	fs.Var(&def, "D", "define a macro (`NAME[=VALUE]`) for the compiler; repeatable")
	fs.StringVar(&opt.CC, "cc", "", "C compiler (default cc, or ARCH-linux-gnu-gcc with --target-arch)")
	fs.StringVar(&opt.Arch, "target-arch", "", "target `ARCH` (aarch64, ...) for a cross compiler")
	fs.DurationVar(&opt.Timeout, "timeout", abiread.DefaultCompileTimeout, "kill the compiler and all it started after `DURATION`")
	maxMem := sizeFlag(abiread.DefaultCompileMemory)
	fs.Var(&maxMem, "max-memory", "address space the compiler may use, `N` bytes (512M, 2G)")
	format := fs.String("format", "text", "output `format`: text or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	opt.MaxMemory = int64(maxMem)
	f, err := report.ParseFormat(*format, report.Text, report.JSON)
	if err != nil || len(pos) != 0 || len(hdr) == 0 || len(typ)+len(cst) == 0 {
		if err != nil {
			env.say("abi headers", errText(err))
		} else if len(pos) != 0 {
			env.sayf("abi headers", "unexpected argument %q", pos[0])
		} else {
			fmt.Fprintln(env.stderr, "abifloor abi headers: need --header and at least one --type or --const")
		}
		fs.Usage()
		return exitError
	}
	opt.Includes, opt.Headers, opt.Types, opt.Consts = inc, hdr, typ, cst
	for _, d := range def {
		opt.Flags = append(opt.Flags, "-D"+d)
	}
	a, err := abiread.Headers(ctx, opt)
	if err != nil {
		msg := err.Error()
		switch {
		case errors.Is(err, abiread.ErrNoCompiler):
			msg += " (install it or name one with --cc)"
		case errors.Is(err, abiread.ErrCompilerTimeout):
			msg += "\n(raise --timeout)"
		case errors.Is(err, abiread.ErrCompilerMemory):
			msg += "\n(raise --max-memory)"
		}
		// The compiler quotes the headers.
		env.say("abi headers", cleanLines(strings.TrimSpace(msg)))
		return exitError
	}
	return writeABI(env, f, a)
}
