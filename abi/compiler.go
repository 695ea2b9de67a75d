package abi

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Limits on the compiler behind Headers. A header is input like any other:
// one that includes /dev/zero drove cc1 to 12 GB, and a compiler that hangs
// used to hang abifloor with it.
const (
	DefaultCompileTimeout = 60 * time.Second
	DefaultCompileMemory  = 2 << 30
)

// ErrCompilerTimeout is wrapped when the compiler ran out of time.
var ErrCompilerTimeout = errors.New("timed out")

// maxCompilerStderr is how much of the compiler's diagnostics is kept for
// the error; a header can make it print without end.
const maxCompilerStderr = 64 << 10

// runCompiler runs the compiler ccPath (called cc in messages) with args:
//
//   - in a process group of its own, so a timeout, an interrupt or a
//     SIGTERM of abifloor kills the driver and every cc1 and as it started
//     (killing only the driver left cc1 running and holding the pipe);
//   - with RLIMIT_AS set in the child before it runs, through
//     `sh -c 'ulimit -v KB && exec "$0" "$@"'`: Go's os/exec cannot set a
//     limit between fork and exec, setting it on abifloor itself would bind
//     the Go runtime (and every goroutine) too, and prlimit(2) on the child
//     after Start races with the driver starting cc1. Children inherit the
//     limit, so cc1 and as are bound too. sh is wherever a C compiler is;
//     ulimit -v is in dash, bash, busybox and mksh;
//   - with WaitDelay, so a process that escaped the group and holds stderr
//     open cannot make the wait last for ever.
func runCompiler(ctx context.Context, cc, ccPath string, args []string, opt HeaderOptions) error {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultCompileTimeout
	}
	mem := opt.MaxMemory
	if mem <= 0 {
		mem = DefaultCompileMemory
	}
	// A hard limit already below ours stays: ulimit may lower it, not raise it.
	var cur unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &cur) == nil && cur.Max != unix.RLIM_INFINITY && int64(cur.Max) < mem {
		mem = int64(cur.Max)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return fmt.Errorf("sh not found on PATH: it sets the compiler's memory limit: %w", err)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	script := "ulimit -v " + strconv.FormatInt(mem>>10, 10) + ` && exec "$0" "$@"`
	cmd := exec.CommandContext(tctx, sh, append([]string{"-c", script, ccPath}, args...)...)
	// Pdeathsig: should abifloor itself be killed (SIGKILL, which no
	// handler sees), the driver dies with it; cc1 and as then lose their
	// pipes. Best effort: killing the group on timeout or signal is the
	// real bound.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	g := &group{cmd: cmd}
	cmd.Cancel = g.kill
	cmd.WaitDelay = 2 * time.Second
	stderr := &cappedBuffer{max: maxCompilerStderr}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", cc, err)
	}
	g.waitExit()
	err = cmd.Wait()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr.String())
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s interrupted: %w", cc, ctx.Err())
	case tctx.Err() != nil:
		return fmt.Errorf("%s %w after %v (--timeout), killed with every process it started\n%s", cc, ErrCompilerTimeout, timeout, msg)
	case strings.Contains(msg, "out of memory") || strings.Contains(msg, "memory exhausted") || strings.Contains(msg, "Cannot allocate memory"):
		return fmt.Errorf("%s failed: %v: over its memory limit of %d bytes (--max-memory)\n%s", cc, err, mem, msg)
	}
	return fmt.Errorf("%s failed: %v\n%s", cc, err, msg)
}

// group is the process group a started command leads. Its ID is the
// leader's PID, which the kernel may give to another process once the
// leader is reaped and the group is empty: the group is only ever killed
// while the leader is alive or a zombie not yet reaped by cmd.Wait.
type group struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	exited bool // the leader has exited; the group was killed once more
}

// kill kills every process in the group (cmd.Cancel, on timeout or
// interrupt).
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
// the stderr pipe or keep running.
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

// cappedBuffer keeps the first max bytes written to it and counts the rest.
type cappedBuffer struct {
	max     int
	b       []byte
	dropped int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	keep := min(len(p), c.max-len(c.b))
	c.b = append(c.b, p[:keep]...)
	c.dropped += int64(len(p) - keep)
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	if c.dropped == 0 {
		return string(c.b)
	}
	return fmt.Sprintf("%s\n[%d more bytes of diagnostics]", c.b, c.dropped)
}
