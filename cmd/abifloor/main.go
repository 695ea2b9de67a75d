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
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
)

// Exit codes shared by most sub-commands (diff uses abidiff's bits instead).
const (
	exitOK        = 0
	exitViolation = 1
	exitError     = 2
)

// command is one sub-command. Each lives in its own file and registers itself
// from init, so sub-commands can be added without touching this file.
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
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("abifloor: command registered twice: " + c.name)
	}
	commands[c.name] = c
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
	// SIGTERM and SIGHUP end the run like ^C does: what a command started
	// (a compiler's process group) is killed and its temporary files go.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A second signal ends abifloor at once, as it would without handlers.
	go func() { <-ctx.Done(); stop() }()
	// Output is buffered: text tables are written a cell at a time.
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	env := &cmdEnv{stdout: out, stderr: os.Stderr, getenv: os.Getenv, tty: isTerminal(os.Stdout), errTTY: isTerminal(os.Stderr)}
	code := run(ctx, env, os.Args[1:])
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "abifloor: writing output:", err)
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
		return helpCommand(ctx, env, args[1])
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.stderr)
		if len(args) == 0 {
			return exitError
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		if code, ok := ccFallback(ctx, env, args); ok {
			return code
		}
	}
	if !ok {
		fmt.Fprintf(env.stderr, "abifloor: unknown command %q\n", args[0])
		usage(env.stderr)
		return exitError
	}
	return c.run(ctx, env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: abifloor COMMAND [flags] ARGS...")
	fmt.Fprintln(w, "\ncommands:")
	names := commandNames()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'abifloor COMMAND -h' for a command's flags.")
}

// commandNames returns the registered commands' names, sorted: the order
// of the usage, the completion scripts and the manual page.
func commandNames() []string { return slices.Sorted(maps.Keys(commands)) }

// newFlags returns a FlagSet that reports errors on env.stderr.
func newFlags(env *cmdEnv, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "usage: abifloor %s %s\n", name, synopsis)
		printFlags(env.stderr, fs)
	}
	noteFlags(name, synopsis, fs)
	return fs
}

// parseFlags parses flags that may appear before, between or after the
// positional arguments (abifloor check /usr --max GLIBC=2.35). Everything
// after a literal "--" is positional. It returns the positional arguments,
// or errHelp/another error (already printed) when parsing failed.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
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
