package interrupt

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The first signal cancels the context with the signal as its cause;
// the second calls again, which the caller makes exit at once.
func TestNotifyInterruptTwice(t *testing.T) {
	again := make(chan os.Signal, 1)
	ctx, stop := Notify(context.Background(), func(s os.Signal) { again <- s }, Grace{time.Minute, time.Minute}, func(os.Signal, string) { t.Error("late after a minute") })
	defer stop()
	// The handlers are in place once Notify returns.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGTERM did not cancel the context")
	}
	var ie *Error
	if !errors.As(context.Cause(ctx), &ie) || ie.Signal != syscall.SIGTERM {
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
	if got := ExitCode(syscall.SIGTERM); got != 143 {
		t.Errorf("ExitCode(SIGTERM) = %d, want 143", got)
	}
}

// A command still at work past its grace after the first signal (a
// worker in a large file on a slow disk) is ended then: late is called
// with that signal and the bound that ran out, and the caller exits 2 from it.
// Wall time ends one that spends no CPU ...
func TestNotifyInterruptLateWall(t *testing.T) {
	late := make(chan string, 1)
	ctx, stop := Notify(context.Background(), func(os.Signal) { t.Error("again without a second signal") }, Grace{CPU: time.Minute, Wall: 50 * time.Millisecond}, func(s os.Signal, why string) {
		if s != syscall.SIGINT {
			t.Errorf("late(%v)", s)
		}
		late <- why
	})
	defer stop()
	start := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	select {
	case why := <-late:
		if time.Since(start) < 50*time.Millisecond || strings.Contains(why, "CPU") {
			t.Errorf("late (%s) after %v", why, time.Since(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("late was not called")
	}
}

// ... and CPU time one that is busy, however long the wall clock says
// it has had.
func TestNotifyInterruptLateCPU(t *testing.T) {
	late := make(chan string, 1)
	ctx, stop := Notify(context.Background(), func(os.Signal) { t.Error("again without a second signal") }, Grace{CPU: 50 * time.Millisecond, Wall: time.Hour}, func(_ os.Signal, why string) { late <- why })
	defer stop()
	cpu0 := ProcessCPU()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	// A busy worker: it spins until the test ends.
	var stopSpin atomic.Bool
	defer stopSpin.Store(true)
	go func() {
		for !stopSpin.Load() {
		}
	}()
	select {
	case why := <-late:
		if !strings.Contains(why, "CPU time") || ProcessCPU()-cpu0 < 50*time.Millisecond {
			t.Errorf("late (%s) after %v of CPU", why, ProcessCPU()-cpu0)
		}
	case <-time.After(time.Minute):
		t.Fatal("late was not called")
	}
}
