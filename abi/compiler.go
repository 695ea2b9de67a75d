package abi

import (
	"context"
	"time"

	"github.com/abifloor/abifloor/internal/run"
)

// Limits on the compiler behind Headers. A header is input like any other:
// one that includes /dev/zero drove cc1 to 12 GB, and a compiler that hangs
// used to hang abifloor with it.
const (
	DefaultCompileTimeout = 60 * time.Second
	DefaultCompileMemory  = 2 << 30
)

// ErrCompilerTimeout is wrapped when the compiler ran out of time;
// ErrCompilerMemory when it failed over its memory limit.
var (
	ErrCompilerTimeout = run.ErrTimeout
	ErrCompilerMemory  = run.ErrOverMemory
)

// maxCompilerStderr is how much of the compiler's diagnostics is kept for
// the error; a header can make it print without end.
const maxCompilerStderr = 64 << 10

// runCompiler runs the compiler ccPath (called cc in messages) with args,
// through run: its own process group, killed whole on timeout or
// interrupt, under an address-space limit that binds cc1 and as too.
func runCompiler(ctx context.Context, cc, ccPath string, args []string, opt HeaderOptions) error {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultCompileTimeout
	}
	mem := opt.MaxMemory
	if mem <= 0 {
		mem = DefaultCompileMemory
	}
	_, err := run.Cmd{Path: ccPath, Name: cc, Args: args, Timeout: timeout, MaxMemory: mem, MaxStderr: maxCompilerStderr}.Run(ctx)
	return err
}
