package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/rogpeppe/go-internal/testscript"
)

// interruptWithin is how soon after the signal an interrupted command
// must have exited. Issue 17 asks for one second, and the commands stop in
// 0.1–0.6 s measured at load 16 on 2 cores (the time is logged); the test
// allows three, so that a machine running the whole suite at once does not
// fail it for the scheduler's delay.
const interruptWithin = 3 * time.Second

func init() {
	// interrupt SIG DELAY N PROG ARGS... starts PROG, sends it SIG (INT,
	// TERM or HUP) after DELAY, and checks that it exits with exactly N
	// within a second of the signal. PROG must still be running at the
	// signal, so the test proves something: a run that finished first
	// fails the script. PROG's output is the command's stdout and stderr.
	// maxrss MB abifloor ARGS... runs abifloor (its exit status aside:
	// the lines around it check behaviour) and fails the script when its
	// peak resident memory passed MB megabytes. The child reports its own
	// (VmHWM, TestMain): its rusage would count the test it was forked
	// from.
	scriptCmds["maxrss"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 || args[1] != "abifloor" {
			ts.Fatalf("usage: maxrss MB abifloor ARGS...")
		}
		limit, err := strconv.Atoi(args[0])
		ts.Check(err)
		prog, err := lookPathIn(args[1], ts.Getenv("PATH"))
		ts.Check(err)
		cmd := exec.Command(prog, args[2:]...)
		cmd.Dir, cmd.Env = ts.MkAbs("."), append(scriptEnv(ts), "ABIFLOOR_TEST_PEAK=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		rss, ok := fixture.PeakMemory(stderr.String())
		if !ok {
			ts.Fatalf("maxrss: abifloor reported no VmHWM (no /proc?)\n%s", stderr.String())
		}
		ts.Logf("abifloor %v: peak RSS %d MB", args[2:], rss>>20)
		if rss > int64(limit)<<20 {
			ts.Fatalf("abifloor %v: peak RSS %d MB, more than %d MB", args[2:], rss>>20, limit)
		}
	}
	scriptCmds["interrupt"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 4 {
			ts.Fatalf("usage: interrupt SIG DELAY N PROG ARGS...")
		}
		sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}[args[0]]
		if !ok {
			ts.Fatalf("interrupt: unknown signal %q", args[0])
		}
		delay, err := time.ParseDuration(args[1])
		ts.Check(err)
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		prog, err := lookPathIn(args[3], ts.Getenv("PATH"))
		ts.Check(err)
		cmd := exec.Command(prog, args[4:]...)
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = scriptEnv(ts)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		ts.Check(cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			ts.Fatalf("%s finished (%v) before the signal, after %v: give it more to do\nstderr:\n%s", args[3], err, delay, stderr.String())
		case <-time.After(delay):
		}
		ts.Check(cmd.Process.Signal(sig))
		at := time.Now()
		var werr error
		select {
		case werr = <-exited:
		case <-time.After(interruptWithin):
			cmd.Process.Kill()
			<-exited
			ts.Fatalf("%s still ran %v after SIG%s\nstderr:\n%s", args[3], interruptWithin, args[0], stderr.String())
		}
		took := time.Since(at)
		ts.Stdout().Write(stdout.Bytes())
		ts.Stderr().Write(stderr.Bytes())
		got := 0
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			got = ee.ExitCode()
		} else if werr != nil {
			ts.Fatalf("interrupt: %v", werr)
		}
		ts.Logf("exited %d, %v after SIG%s", got, took.Round(time.Millisecond), args[0])
		if got != want {
			ts.Fatalf("%s exited %d after SIG%s, want %d", args[3], got, args[0], want)
		}
	}
}

// scriptEnv is the environment a script's exec would give a program:
// this process's, with what the script set on top.
func scriptEnv(ts *testscript.TestScript) []string {
	env := os.Environ()
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "NO_COLOR", "GOARCH", "XDG_CACHE_HOME", "ABIFLOOR_CACHE"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// The first signal cancels the context with the signal as its cause;
// the second calls again, which Main makes exit at once.
func TestNotifyInterruptTwice(t *testing.T) {
	again := make(chan os.Signal, 1)
	ctx, stop := notifyInterrupt(context.Background(), func(s os.Signal) { again <- s }, time.Minute, func(os.Signal) { t.Error("late after a minute") })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGTERM did not cancel the context")
	}
	var ie *errInterrupted
	if !errors.As(context.Cause(ctx), &ie) || ie.sig != syscall.SIGTERM {
		t.Fatalf("cause %v, want interrupted by SIGTERM", context.Cause(ctx))
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-again:
		if s != syscall.SIGINT {
			t.Errorf("again(%v), want SIGINT", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not call again")
	}
	if got := signalExit(syscall.SIGTERM); got != 143 {
		t.Errorf("signalExit(SIGTERM) = %d, want 143", got)
	}
}

// A command a signal cut short exits 2 whatever it returned, and says
// the run is incomplete; an error code stands.
func TestInterruptedExit(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var stderr bytes.Buffer
	env := &cmdEnv{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	if got := interruptedExit(ctx, env, []string{"check"}, exitOK); got != exitOK {
		t.Errorf("not interrupted: exit %d, want 0", got)
	}
	cancel(&errInterrupted{syscall.SIGINT})
	for _, code := range []int{exitOK, exitViolation} {
		stderr.Reset()
		env.saidIncomplete = false
		if got := interruptedExit(ctx, env, []string{"check", "/usr"}, code); got != exitError {
			t.Errorf("interrupted, command returned %d: exit %d, want 2", code, got)
		}
		if !strings.Contains(stderr.String(), "abifloor check: incomplete: interrupted by SIGINT") {
			t.Errorf("stderr %q", stderr.String())
		}
	}
	stderr.Reset()
	env.saidIncomplete = false
	if got := interruptedExit(ctx, env, []string{"diff"}, 5); got != 5 || stderr.Len() > 0 {
		t.Errorf("diff's error bits: exit %d, want 5, and no second line: %q", got, stderr.String())
	}
}

// A command still at work stopGrace after the first signal (a worker in
// a large file on a slow disk) is ended then: late is called with that
// signal, and Main exits 2 from it.
func TestNotifyInterruptLate(t *testing.T) {
	late := make(chan os.Signal, 1)
	ctx, stop := notifyInterrupt(context.Background(), func(os.Signal) { t.Error("again without a second signal") }, 50*time.Millisecond, func(s os.Signal) { late <- s })
	defer stop()
	start := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	select {
	case s := <-late:
		if s != syscall.SIGINT || time.Since(start) < 50*time.Millisecond {
			t.Errorf("late(%v) after %v", s, time.Since(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("late was not called")
	}
}
