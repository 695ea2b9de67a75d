// Command abifloor proves, before a native Linux binary ships, that it will
// load where it is going. This package only wires flags to the library
// packages; every decision lives in those packages.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/abifloor/abifloor/internal/cli"
	"github.com/abifloor/abifloor/internal/interrupt"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/report"
)

// Exit codes shared by most sub-commands (diff uses abidiff's bits instead).
const (
	exitOK        = 0
	exitViolation = 1
	exitError     = 2
)

// command is one sub-command. The list of them is commands, in main.go:
// adding a sub-command adds a line there, as cmd/go lists its commands.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cmdEnv, args []string) int
}

// cmdEnv carries what a sub-command may touch of the process, so tests can
// drive commands in-process.
type cmdEnv struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// tty reports whether stdout is a terminal (colour); errTTY whether
	// stderr is (progress).
	tty, errTTY bool
	// saidIncomplete is set by sayIncomplete: the command has said that
	// its run was cut short, so Main need not.
	saidIncomplete bool
	// said is the message of the first line say or sayf wrote (of its
	// first 4 KiB), since a command last emptied it: check's usage
	// error, which its report files say too.
	said string
}

// sayIncomplete writes the line of the interruption convention on
// stderr, "abifloor CMD: incomplete: HOW" (HOW: "interrupted after 1016
// of the files found"). A command whose ctx was cancelled calls it, then
// exits 2 and prints no OK.
func sayIncomplete(env *cmdEnv, cmd, how string) {
	fmt.Fprintf(env.stderr, "%s: incomplete: %s\n", strings.TrimSpace("abifloor "+cmd), how)
	env.saidIncomplete = true
}

// commands are abifloor's sub-commands in the order of the usage, the
// completion scripts and the manual page. It is set in init, not in its
// declaration, because completion, help and man read it.
var commands []*command

func init() {
	commands = []*command{
		{name: "scan", summary: "list the glibc/GLIBCXX/... floor of every ELF file under the paths", run: runScan},
		{name: "check", summary: "fail when a floor is above --max NS=VER or a --target's limits", run: runCheck},
		{name: "fit", summary: "the oldest manylinux/musllinux tag and distro release each file and the tree fit", run: runFit},
		{name: "bind", summary: "how undefined symbols get bound (lazy, eager, never) and whether a binary dies at start", run: runBind},
		{name: "abi", summary: "the ABI of an ELF file or a C header tree (dump, headers)", run: runABI},
		{name: "diff", summary: "compare two ABIs (ELF or ABI JSON), abidiff exit bits", run: runDiff},
		{name: "ranges", summary: "version→ABI range tables (build, lookup, add, show)", run: runRanges},
		{name: "cc", summary: "compile and link C against a glibc floor, then prove it (--glibc 2.17 -- gcc ...)", run: func(ctx context.Context, env *cmdEnv, args []string) int {
			return runCC(ctx, env, args, false)
		}},
		{name: "c++", summary: "compile and link C++ against a glibc floor, then prove it (--glibc 2.17 -- g++ ...)", run: func(ctx context.Context, env *cmdEnv, args []string) int {
			return runCC(ctx, env, args, true)
		}},
		{name: "pkg-config", summary: "pkg-config for a link through cc: hides the packages whose libraries it would refuse (--glibc 2.17 -- pkg-config ...)", run: runPkgConfig},
		{name: "stubs", summary: "write stub libraries of a glibc release to link against (--glibc 2.17 -o DIR)", run: runStubs},
		{name: "targets", summary: "print the embedded table of named targets", run: runTargets},
		{name: "completion", summary: "print a shell completion script: completion bash|zsh|fish", run: runCompletion},
		{name: "man", summary: "print the manual page (roff): abifloor man | man -l -", run: runMan},
		{name: "version", summary: "print the abifloor version (also --version, -V)", run: runVersion},
	}
}

// lookupCommand returns the sub-command called name, or nil.
func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() { os.Exit(Main()) }

// Main runs abifloor with os.Args and returns the exit code.
func Main() int {
	// Memory is bounded by the work: a soft limit keeps the collector from
	// letting garbage pile up to twice the live heap on big trees
	// (limits.SoftMemory, docs/security.md). An explicit GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limits.SoftMemory)
	}
	// SIGINT, SIGTERM and SIGHUP cancel the command's ctx: what it
	// started (a compiler's process group) is killed, its temporary files
	// go, and it reports how far it got and exits 2. A second signal,
	// or a command still at work long after the first (StopGrace: a
	// worker stuck in a file), ends it.
	ctx, stop := interrupt.Notify(context.Background(), func(sig os.Signal) {
		fmt.Fprintf(os.Stderr, "abifloor: %v again: stopping now\n", sig)
		os.Exit(interrupt.ExitCode(sig))
	}, interrupt.StopGrace, func(sig os.Signal, why string) {
		fmt.Fprintf(os.Stderr, "abifloor: incomplete: interrupted by %s, and still at work after %s: stopping now\n", interrupt.SignalName(sig), why)
		os.Exit(exitError)
	})
	defer stop()
	// Output is buffered: text tables are written a cell at a time.
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	env := guardedEnv(out, os.Stderr)
	env.getenv, env.tty, env.errTTY = os.Getenv, isTerminal(os.Stdout), isTerminal(os.Stderr)
	code := run(ctx, env, os.Args[1:])
	flushGuards(env)
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "abifloor: writing output:", err)
		return exitError
	}
	code = interruptedExit(ctx, env, os.Args[1:], code)
	return code
}

// guardedEnv is the environment of a run whose stdout and stderr a CI
// runner may read: both go through a report.Guard, so that no line of
// them is a workflow command, whatever a name in the output holds and
// whichever path printed it (each writer escapes its names with
// report.Clean; the guard is the backstop).
func guardedEnv(stdout, stderr io.Writer) *cmdEnv {
	return &cmdEnv{stdout: report.NewGuard(stdout), stderr: report.NewGuard(stderr)}
}

// flushGuards writes what env's guards hold of an unfinished character.
func flushGuards(env *cmdEnv) {
	for _, w := range []io.Writer{env.stdout, env.stderr} {
		if g, ok := w.(*report.Guard); ok {
			g.Flush()
		}
	}
}

// interruptedExit is the backstop of the interruption convention: a
// command whose ctx a signal cancelled never exits 0 or 1, whatever it
// returned: it exits 2, and stderr says the run is incomplete (unless
// the command said so with sayIncomplete). Other codes (2, diff's error
// bits) stand: such a command has reported the interruption itself.
func interruptedExit(ctx context.Context, env *cmdEnv, args []string, code int) int {
	var ie *interrupt.Error
	if !errors.As(context.Cause(ctx), &ie) {
		return code
	}
	// A command that failed (2, diff's error bits) has said why.
	if !env.saidIncomplete && (code == exitOK || code == exitViolation) {
		name := ""
		if len(args) > 0 && lookupCommand(args[0]) != nil {
			name = args[0]
		}
		sayIncomplete(env, name, ie.Error()+" before the run finished")
	}
	if code == exitOK || code == exitViolation {
		return exitError
	}
	return code
}

func run(ctx context.Context, env *cmdEnv, args []string) int {
	args, code := globalFlags(env, args)
	if code >= 0 {
		return code
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-V") {
		return runVersion(ctx, env, nil)
	}
	if len(args) > 1 && args[0] == "help" {
		return helpCommand(ctx, env, args[1:])
	}
	if len(args) == 0 {
		fmt.Fprintln(env.stderr, "abifloor: missing command")
		usage(env.stderr)
		return exitError
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.stdout)
		return exitOK
	}
	c := lookupCommand(args[0])
	if args[0] == actionCommand {
		return runAction(ctx, env, args[1:])
	}
	if c == nil {
		// A tool that runs only the first word of $CC (cc.go).
		if code, ok := ccFallback(ctx, env, args); ok {
			return code
		}
		unknownCommand(env, "abifloor", args[0])
		return exitError
	}
	return c.run(ctx, env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: abifloor COMMAND [flags] ARGS...")
	fmt.Fprintln(w, "\ncommands:")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'abifloor help COMMAND' (or 'abifloor COMMAND -h') for a command's flags.")
}

// commandNames returns the commands' names in the order of the usage.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.name)
	}
	return names
}

// newFlags returns a FlagSet for command name ("check", "abi dump").
// parseFlags and parseOnly report its errors; fs.Usage, which a command
// calls when its arguments are wrong, writes the usage and flags on
// env.stderr.
func newFlags(env *cmdEnv, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	info := &flagInfo{env: env, name: name, synopsis: synopsis}
	fs.Usage = func() {
		if info.parsing {
			return // parseFlags reports it
		}
		fmt.Fprintf(env.stderr, "usage: abifloor %s %s\n", name, synopsis)
		cli.PrintFlags(env.stderr, fs, synopsis)
	}
	noteFlags(fs, info)
	return fs
}

// flagInfo is what parsing needs to know of a flag set newFlags made.
type flagInfo struct {
	env            *cmdEnv
	name, synopsis string
	parsing        bool
}

// parseFlags parses flags that may appear before, between or after the
// positional arguments (abifloor check /usr --max GLIBC=2.35). Everything
// after a literal "--" is positional. It returns the positional arguments,
// or errHelp/another error (already printed) when parsing failed: -h and
// --help write the usage and flags on stdout, a wrong flag gets a reason
// and the nearest flag names on stderr.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseOnly(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseOnly is fs.Parse (flags stop at the first positional argument)
// reporting errors as parseFlags does.
func parseOnly(fs *flag.FlagSet, args []string) error {
	info := lookupFlagInfo(fs)
	if info == nil {
		return fs.Parse(args)
	}
	out := fs.Output()
	fs.SetOutput(io.Discard)
	info.parsing = true
	err := cli.Parse(fs, args, info.synopsis)
	info.parsing = false
	fs.SetOutput(out)
	if err == nil {
		return checkFlagValues(info, fs)
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(info.env.stdout, "usage: abifloor %s %s\n", info.name, info.synopsis)
		cli.PrintFlags(info.env.stdout, fs, info.synopsis)
		return err
	}
	flagError(info, err)
	return err
}

// flagExit maps a flag parse error to an exit code: -h is success.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitError
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// sayf writes the line "abifloor CMD: MSG" on stderr, MSG formatted as
// fmt.Sprintf formats it, and returns exitError, so that a command that
// fails says why and stops in one statement: return env.sayf(...).
func (env *cmdEnv) sayf(cmd, format string, a ...any) int {
	return env.say(cmd, fmt.Sprintf(format, a...))
}

// say is sayf with the operands spaced as fmt.Sprintln spaces them.
func (env *cmdEnv) say(cmd string, a ...any) int {
	prefix, msg := "abifloor "+cmd+": ", fmt.Sprintln(a...)
	if env.said == "" {
		env.said, _, _ = strings.Cut(msg[:min(len(msg), 4096-len(prefix))], "\n")
	}
	fmt.Fprint(env.stderr, prefix+msg)
	return exitError
}
