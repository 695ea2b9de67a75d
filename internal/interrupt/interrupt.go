// Package interrupt is abifloor's answer to SIGINT, SIGTERM and SIGHUP:
// the first cancels the run's context with an *Error cause, so that what
// the run started stops and it reports how far it got; a second signal,
// or a run still at work past its Grace, ends the process.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Error is the cause of a context a signal cancelled (context.Cause).
type Error struct{ Signal os.Signal }

func (e *Error) Error() string { return "interrupted by " + SignalName(e.Signal) }

// SignalName is SIGINT, SIGTERM or SIGHUP, or what the os says of sig.
func SignalName(sig os.Signal) string {
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

// ExitCode is the exit code of a process the signal ended: 128+N, as a
// shell reports it (130 for SIGINT, 143 for SIGTERM); 2 for a signal
// that is no syscall.Signal.
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 2
}

// Grace is how long a run may go on after the first signal before it is
// ended where it stands (late): CPU time it spends after the signal, or
// wall time, whichever runs out first.
//
// The CPU bound is what the run does: a worker stuck in a large file
// spends it fast, whatever else the machine runs. The wall bound catches
// what spends none (a read blocked on a slow disk) and is generous,
// because a busy machine delays everything. A run that reacts as it
// should (the worker pools abandon files in flight, walk.AbandonAfter)
// writes its report of what finished in a few milliseconds of CPU, so on
// a loaded machine it is still the report, not the hard stop, that ends
// the run.
type Grace struct{ CPU, Wall time.Duration }

// StopGrace: an idle machine ends a run within about a second of the
// first signal, and a busy one without losing its report.
var StopGrace = Grace{CPU: time.Second, Wall: 10 * time.Second}

// ProcessCPU is the CPU time this process has spent, user and system.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Notify returns a context that the first SIGINT, SIGTERM or SIGHUP
// cancels, with an *Error cause; on the second, again is called, and
// late, saying which bound ran out, when the run is still at work past
// g (the caller exits from both). stop ends the watching.
//
// The handlers are in place when Notify returns, before the caller starts
// any program. os/signal starts a thread of its own to manage the signal
// mask, about a quarter of a millisecond. Installing them in the
// background instead, while the compiler wrapper found its stubs, cost it
// more: it had to wait for them before it started the compiler, and the
// threads the installation started slowed what ran beside them (0.14 to
// 0.24 ms more per warm call, measured with the wrapper's phases
// timestamped, 300 interleaved runs).
func Notify(parent context.Context, again func(os.Signal), g Grace, late func(os.Signal, string)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	done := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		defer signal.Stop(sigs)
		var first os.Signal
		select {
		case first = <-sigs:
			cancel(&Error{first})
		case <-done:
			return
		}
		start, cpu0 := time.Now(), ProcessCPU()
		tick := time.NewTicker(max(min(g.CPU, g.Wall)/20, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case sig := <-sigs:
				again(sig)
				return
			case <-tick.C:
				if used := ProcessCPU() - cpu0; used >= g.CPU {
					late(first, fmt.Sprintf("%v of CPU time", used.Round(10*time.Millisecond)))
					return
				}
				if since := time.Since(start); since >= g.Wall {
					late(first, since.Round(10*time.Millisecond).String())
					return
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		// The watcher stops watching (signal.Stop) on its way out; a
		// process about to exit does not wait for it.
		close(done)
		cancel(nil)
	}
}
