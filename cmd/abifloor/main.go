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
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

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
	// letting garbage pile up to twice the live heap on big trees. An
	// explicit GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(48 << 20)
	}
	// SIGINT, SIGTERM and SIGHUP cancel the command's ctx: what it
	// started (a compiler's process group) is killed, its temporary files
	// go, and it reports how far it got and exits 2. A second signal,
	// or a command still at work long after the first (stopGrace: a
	// worker stuck in a file), ends it.
	ctx, stop := notifyInterrupt(context.Background(), func(sig os.Signal) {
		fmt.Fprintf(os.Stderr, "abifloor: %v again: stopping now\n", sig)
		os.Exit(signalExit(sig))
	}, stopGrace, func(sig os.Signal, why string) {
		fmt.Fprintf(os.Stderr, "abifloor: incomplete: interrupted by %s, and still at work after %s: stopping now\n", signalName(sig), why)
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

// errInterrupted is the cause of a command's ctx when a signal cancelled
// it (context.Cause).
type errInterrupted struct{ sig os.Signal }

func (e *errInterrupted) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		switch s {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		case syscall.SIGHUP:
			return "SIGHUP"
		}
	}
	return sig.String()
}

// signalExit is the exit code of a process the signal ended: 128+N, as
// a shell reports it (130 for SIGINT, 143 for SIGTERM).
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitError
}

// grace is how long a command may go on after the first signal before it
// is ended where it stands (late): CPU time it spends after the signal,
// or wall time, whichever runs out first.
//
// The CPU bound is what the command does: a worker stuck in a large file
// spends it fast, whatever else the machine runs. The wall bound catches
// what spends none (a read blocked on a slow disk) and is generous,
// because a busy machine delays everything. A run that reacts as it
// should (the worker pools abandon files in flight, walk.AbandonAfter)
// writes its report of what finished in a few milliseconds of CPU, so on
// a loaded machine it is still the report, not the hard stop, that ends
// the run.
type grace struct{ cpu, wall time.Duration }

// stopGrace: an idle machine ends a run within about a second of the
// first signal, and a busy one without losing its report.
var stopGrace = grace{cpu: time.Second, wall: 10 * time.Second}

// processCPU is the CPU time this process has spent, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// notifyInterrupt returns a context that the first SIGINT, SIGTERM or
// SIGHUP cancels, with an *errInterrupted cause; on the second, again
// is called, and late, saying which bound ran out, when the command is
// still at work past g (Main exits from both). stop ends the watching.
func notifyInterrupt(parent context.Context, again func(os.Signal), g grace, late func(os.Signal, string)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sigs:
			cancel(&errInterrupted{first})
		case <-done:
			return
		}
		start, cpu0 := time.Now(), processCPU()
		tick := time.NewTicker(max(min(g.cpu, g.wall)/20, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case sig := <-sigs:
				again(sig)
				return
			case <-tick.C:
				if used := processCPU() - cpu0; used >= g.cpu {
					late(first, fmt.Sprintf("%v of CPU time", used.Round(10*time.Millisecond)))
					return
				}
				if since := time.Since(start); since >= g.wall {
					late(first, since.Round(10*time.Millisecond).String())
					return
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interruptedExit is the backstop of the interruption convention: a
// command whose ctx a signal cancelled never exits 0 or 1, whatever it
// returned: it exits 2, and stderr says the run is incomplete (unless
// the command said so with sayIncomplete). Other codes (2, diff's error
// bits) stand: such a command has reported the interruption itself.
func interruptedExit(ctx context.Context, env *cmdEnv, args []string, code int) int {
	var ie *errInterrupted
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
	if args[0] == actionCommand {
		return runAction(ctx, env, args[1:])
	}
	c := lookupCommand(args[0])
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
		printFlags(env.stderr, fs)
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
	err := fs.Parse(args)
	info.parsing = false
	fs.SetOutput(out)
	if err == nil {
		return checkFlagValues(info, fs)
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(info.env.stdout, "usage: abifloor %s %s\n", info.name, info.synopsis)
		printFlags(info.env.stdout, fs)
		return err
	}
	flagError(info, fs, err)
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
