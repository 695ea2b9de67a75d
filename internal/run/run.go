// Package run is the one place abifloor starts another program: compilers,
// git, xz, nm, ar. Every program it starts is
//
//   - found on PATH or named by the caller (never by a data file: the
//     caller decides which program, run only starts it);
//   - in a process group of its own, killed whole when the context is
//     cancelled, its time is up, or abifloor's own SIGINT/SIGTERM handler
//     cancels the context (killing only a compiler driver left cc1 running
//     and holding the pipe);
//   - optionally under an address-space limit set in the child before it
//     execs, through `sh -c 'ulimit -v KB && exec "$0" "$@"'` (Go's os/exec
//     cannot set a limit between fork and exec, setting it on abifloor
//     would bind the Go runtime too, and prlimit(2) after Start races with
//     the driver starting cc1);
//   - killed with SIGKILL should abifloor itself die (Pdeathsig);
//   - given WaitDelay, so a grandchild that escaped the group and holds a
//     pipe cannot make the wait last for ever;
//   - bounded in what it may print: stdout and stderr kept in memory are
//     capped, and the rest is counted, not kept.
//
// Errors are *Error values; none names a command-line flag (the command
// adds that).
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Defaults for a Cmd that sets none.
const (
	// DefaultTimeout bounds a program that sets no Timeout. A query such
	// as `cc -dumpmachine` takes milliseconds; a hung one must not hang
	// abifloor.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxOutput is how much of stdout is kept when the caller
	// collects it (Cmd.Stdout nil).
	DefaultMaxOutput = 64 << 20
	// DefaultMaxStderr is how much of stderr is kept for the error.
	DefaultMaxStderr = 64 << 10
)

// ErrTimeout is wrapped by an *Error for a program that ran out of time.
var ErrTimeout = errors.New("timed out")

// ErrOverMemory is wrapped by an *Error for a program that failed and said
// it was out of memory while running under a MaxMemory limit.
var ErrOverMemory = errors.New("over its memory limit")

// ErrOutputTooLarge is wrapped by an *Error for a program whose collected
// stdout went past MaxOutput.
var ErrOutputTooLarge = errors.New("printed more than its output limit")

// Cmd describes one run of a program.
type Cmd struct {
	// Path is the program: a path, or a name looked up on PATH.
	Path string
	// Name is how messages call the program (default: Path).
	Name string
	Args []string
	Dir  string
	// Env is the environment; nil means abifloor's own.
	Env   []string
	Stdin io.Reader
	// Stdout receives the program's output; nil collects it (up to
	// MaxOutput) into Result.Stdout.
	Stdout io.Writer
	// Stderr, when set, receives the program's diagnostics as they come
	// (a compiler the user runs); otherwise they are kept, capped, for
	// the error.
	Stderr io.Writer
	// Timeout bounds the run (DefaultTimeout when zero; negative: none).
	Timeout time.Duration
	// MaxMemory, when positive, is the child's address-space limit in
	// bytes. A hard limit already below it stays.
	MaxMemory int64
	// MaxOutput and MaxStderr bound what is kept in memory.
	MaxOutput, MaxStderr int
	// Confine, when set, is all the program may open (Landlock,
	// landlock.go). On a kernel without Landlock it runs unconfined:
	// Confinement says so.
	Confine *Confine
	// Started, when set, is called once the program is running (Run
	// only): what the caller reads while it waits starts after the
	// program, not beside its start.
	Started func()
}

// Result is what a finished program left.
type Result struct {
	Stdout   []byte
	Stderr   string
	ExitCode int
}

// Error is a program that could not be started or did not succeed.
type Error struct {
	Name     string
	ExitCode int           // -1 when it did not exit by itself
	Timeout  time.Duration // set with ErrTimeout
	Memory   int64         // the limit, set with ErrOverMemory
	Stderr   string        // capped
	Err      error
}

func (e *Error) Error() string {
	var s string
	switch {
	case errors.Is(e.Err, ErrTimeout):
		s = fmt.Sprintf("%s timed out after %v, killed with every process it started", e.Name, e.Timeout)
	case errors.Is(e.Err, ErrOverMemory):
		s = fmt.Sprintf("%s failed: exit status %d: over its memory limit of %d bytes", e.Name, e.ExitCode, e.Memory)
	case errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded):
		s = fmt.Sprintf("%s interrupted: %v", e.Name, e.Err)
	default:
		s = fmt.Sprintf("%s failed: %v", e.Name, e.Err)
	}
	if e.Stderr != "" {
		s += "\n" + e.Stderr
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// LookPath finds a program on PATH, as exec.LookPath does (its error is
// exec's, which names the program).
func LookPath(name string) (string, error) { return exec.LookPath(name) }

// waitDelay is how long the wait may last, once the program has exited
// or been cancelled, for its output pipes to close. It bounds a grandchild
// that escaped the group and holds a pipe. It is wall time, and the pipes
// are drained by goroutines of this process: on a machine whose cores are
// busy (load 18 on 2 cores, measured) 2 s was too short for them to run,
// and a compile that succeeded failed with "WaitDelay expired".
const waitDelay = 15 * time.Second

// Output runs path with args under the defaults and returns its stdout.
func Output(ctx context.Context, path string, args ...string) ([]byte, error) {
	r, err := Cmd{Path: path, Args: args}.Run(ctx)
	return r.Stdout, err
}

// Run starts the program, waits for it and returns what it left. A
// program that exits non-zero is an *Error whose ExitCode says how.
func (c Cmd) Run(ctx context.Context) (Result, error) {
	var stdout *capped
	if c.Stdout == nil {
		maxOut := c.MaxOutput
		if maxOut <= 0 {
			maxOut = DefaultMaxOutput
		}
		stdout = &capped{max: maxOut}
		c.Stdout = stdout
	}
	p, err := c.start(ctx, false)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	if c.Started != nil {
		c.Started()
	}
	res, err := p.wait()
	if stdout != nil {
		res.Stdout = stdout.b
		if err == nil && stdout.dropped > 0 {
			err = &Error{Name: p.name, ExitCode: res.ExitCode, Stderr: res.Stderr, Err: fmt.Errorf("%w (%d bytes)", ErrOutputTooLarge, stdout.max)}
		}
	}
	return res, err
}

// Stream is a started program whose standard output is read as it comes
// (a decompressor, git archive).
type Stream struct {
	io.Reader
	p    *proc
	done bool
	err  error
}

// Stream starts the program with its standard output on a pipe. Read it
// to the end, then Wait; Close ends a program whose output was not read
// to the end, killing its process group.
func (c Cmd) Stream(ctx context.Context) (*Stream, error) {
	p, err := c.start(ctx, true)
	if err != nil {
		return nil, err
	}
	return &Stream{Reader: p.out, p: p}, nil
}

// Wait waits for the program to exit and returns its error, if any.
func (s *Stream) Wait() error {
	if !s.done {
		s.done = true
		_, s.err = s.p.wait()
	}
	return s.err
}

// Close kills the program if it is still running and waits for it.
func (s *Stream) Close() error {
	if !s.done {
		s.p.g.kill()
	}
	s.Wait()
	return nil
}

type proc struct {
	name    string
	cmd     *exec.Cmd
	g       *group
	ctx     context.Context
	tctx    context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	mem     int64
	stderr  *capped
	out     io.ReadCloser
	// release lets the thread that started a confined program end, once
	// the program has exited.
	release chan struct{}
}

func (c Cmd) start(ctx context.Context, pipe bool) (*proc, error) {
	name := c.Name
	if name == "" {
		name = c.Path
	}
	fail := func(err error) (*proc, error) {
		return nil, &Error{Name: name, ExitCode: -1, Err: err}
	}
	path, err := exec.LookPath(c.Path)
	if err != nil {
		return fail(err)
	}
	p := &proc{name: name, ctx: ctx, timeout: c.Timeout}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	argv := append([]string{path}, c.Args...)
	progs := []string{path}
	if p.mem = c.MaxMemory; p.mem > 0 {
		var cur unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_AS, &cur) == nil && cur.Max != unix.RLIM_INFINITY && int64(cur.Max) < p.mem {
			p.mem = int64(cur.Max)
		}
		sh, err := exec.LookPath("sh")
		if err != nil {
			return fail(fmt.Errorf("sh not found on PATH: it sets the memory limit: %w", err))
		}
		script := "ulimit -v " + strconv.FormatInt(p.mem>>10, 10) + ` && exec "$0" "$@"`
		argv = append([]string{sh, "-c", script}, argv...)
		progs = append(progs, sh)
	}
	p.tctx, p.cancel = ctx, func() {}
	if p.timeout > 0 {
		p.tctx, p.cancel = context.WithTimeout(ctx, p.timeout)
	}
	cmd := exec.CommandContext(p.tctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = c.Dir, c.Env, c.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.cmd, p.g = cmd, &group{cmd: cmd}
	cmd.Cancel = p.g.kill
	cmd.WaitDelay = waitDelay
	maxErr := c.MaxStderr
	if maxErr <= 0 {
		maxErr = DefaultMaxStderr
	}
	p.stderr = &capped{max: maxErr}
	cmd.Stderr = p.stderr
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.Stderr, p.stderr)
	}
	if pipe {
		if p.out, err = cmd.StdoutPipe(); err != nil {
			p.cancel()
			return fail(err)
		}
	} else {
		cmd.Stdout = c.Stdout
	}
	abi, lerr := 0, ErrNoLandlock
	if c.Confine != nil {
		abi, lerr = Confinement()
	}
	if lerr == nil {
		if cmd.Stdin == nil {
			null, err := devNull()
			if err != nil {
				p.cancel()
				return fail(err)
			}
			defer null.Close()
			cmd.Stdin = null
		}
		p.release = make(chan struct{})
		err = startConfined(cmd, c.Confine, abi, progs, p.release)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		p.cancel()
		return fail(err)
	}
	return p, nil
}

func (p *proc) wait() (Result, error) {
	defer p.cancel()
	p.g.waitExit()
	if p.release != nil {
		close(p.release)
	}
	err := p.cmd.Wait()
	res := Result{ExitCode: p.cmd.ProcessState.ExitCode(), Stderr: strings.TrimSpace(p.stderr.String())}
	e := &Error{Name: p.name, ExitCode: res.ExitCode, Stderr: res.Stderr}
	switch {
	case err == nil:
		return res, nil
	case p.ctx.Err() != nil:
		e.Err = p.ctx.Err()
	case p.tctx.Err() != nil:
		e.Err, e.Timeout = ErrTimeout, p.timeout
	case p.mem > 0 && overMemory(res.Stderr):
		e.Err, e.Memory = ErrOverMemory, p.mem
	default:
		e.Err = err
	}
	return res, e
}

func overMemory(msg string) bool {
	return strings.Contains(msg, "out of memory") || strings.Contains(msg, "memory exhausted") || strings.Contains(msg, "Cannot allocate memory")
}

// group is the process group a started command leads. Its ID is the
// leader's PID, which the kernel may give to another process once the
// leader is reaped and the group is empty: the group is only ever killed
// while the leader is alive or a zombie not yet reaped by cmd.Wait.
type group struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	exited bool
}

func (g *group) kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.exited {
		return nil
	}
	err := syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// waitExit waits for the leader to exit without reaping it (WNOWAIT), then
// kills whatever it left behind in its group, which would otherwise hold
// a pipe or keep running.
func (g *group) waitExit() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, g.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	g.kill()
	g.mu.Lock()
	g.exited = true
	g.mu.Unlock()
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	max     int
	b       []byte
	dropped int64
}

func (c *capped) Write(p []byte) (int, error) {
	keep := min(len(p), c.max-len(c.b))
	c.b = append(c.b, p[:keep]...)
	c.dropped += int64(len(p) - keep)
	return len(p), nil
}

func (c *capped) String() string {
	if c.dropped == 0 {
		return string(c.b)
	}
	return fmt.Sprintf("%s\n[%d more bytes]", bytes.TrimSpace(c.b), c.dropped)
}
