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
	"github.com/abifloor/abifloor/internal/interrupt"
	"github.com/rogpeppe/go-internal/testscript"
)

// interruptWithin is how long an interrupted command may take to exit,
// in wall time, before the test calls it hung. It is not the promise
// (a second on an idle machine, interrupt.StopGrace) but a bound no
// loaded machine reaches: the promise is checked in CPU time, which does
// not depend on what else the machine runs (interruptCPU).
const interruptWithin = 30 * time.Second

// interruptCPU is the CPU time an interrupted command may spend after the
// signal: what it does once told to stop (abandon its files, write the
// report of what finished), measured as the kernel counts it, so that a
// machine whose cores are busy does not change the verdict. Measured:
// 0–40 ms for check, scan, fit and bind over /usr.
const interruptCPU = 500 * time.Millisecond

// startedWork is how much the child must have read (rchar in
// /proc/PID/io: the 4 KiB heads of the files it walks) before the signal
// is sent, so that the signal finds it at work, its handlers installed,
// however slowly a busy machine started it.
const startedWork = 256 << 10

// procRead is rchar of /proc/PID/io, and procCPU the user and system
// time of /proc/PID/stat (fields 14 and 15, in clock ticks of 10 ms).
func procRead(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: fields count from
	// after its closing parenthesis, which is field 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+k) * 10 * time.Millisecond, true
}

func init() {
	// interrupt SIG DELAY N PROG ARGS... starts PROG, waits DELAY and
	// until PROG has read startedWork bytes, sends it SIG (INT, TERM or
	// HUP), and checks that it exits with exactly N, having spent at
	// most interruptCPU of CPU time after the signal. PROG must still be
	// running at the signal, so the test proves something: a run that
	// finished first fails the script. PROG's output is the command's
	// stdout and stderr. Nothing here depends on the machine's load.
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
		started := time.Now()
		wait := time.After(delay)
		for ready := false; !ready; {
			select {
			case err := <-exited:
				ts.Fatalf("%s finished (%v) before the signal, after %v: give it more to do\nstderr:\n%s", args[3], err, time.Since(started).Round(time.Millisecond), stderr.String())
			case <-wait:
				wait = nil
			case <-time.After(5 * time.Millisecond):
			}
			if n, ok := procRead(cmd.Process.Pid); wait == nil && (!ok || n >= startedWork) {
				ready = true // without /proc, DELAY alone
			}
			if time.Since(started) > interruptWithin {
				ts.Fatalf("%s read less than %d bytes in %v", args[3], startedWork, interruptWithin)
			}
		}
		cpu0, cpuOK := procCPU(cmd.Process.Pid)
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
		var cpu time.Duration
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && cpuOK {
			cpu = time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) - cpu0
		}
		ts.Logf("exited %d, %v and %v of CPU time after SIG%s", got, took.Round(time.Millisecond), cpu.Round(time.Millisecond), args[0])
		if got != want {
			ts.Fatalf("%s exited %d after SIG%s, want %d", args[3], got, args[0], want)
		}
		if cpu > interruptCPU {
			ts.Fatalf("%s spent %v of CPU time after SIG%s, more than %v", args[3], cpu.Round(time.Millisecond), args[0], interruptCPU)
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

// A command a signal cut short exits 2 whatever it returned, and says
// the run is incomplete; an error code stands.
func TestInterruptedExit(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var stderr bytes.Buffer
	env := &cmdEnv{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
	if got := interruptedExit(ctx, env, []string{"check"}, exitOK); got != exitOK {
		t.Errorf("not interrupted: exit %d, want 0", got)
	}
	cancel(&interrupt.Error{Signal: syscall.SIGINT})
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
