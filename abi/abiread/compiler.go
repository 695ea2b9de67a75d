package abiread

import (
	"context"
	"os"
	"strings"

	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/internal/run"
)

// Limits on the compiler behind Headers. A header is input like any other:
// one that includes /dev/zero drove cc1 to 12 GB, and a compiler that hangs
// used to hang abifloor with it.
const (
	DefaultCompileTimeout = limits.CompileTimeout
	DefaultCompileMemory  = limits.CompileMemory
)

// ErrCompilerTimeout is wrapped when the compiler ran out of time;
// ErrCompilerMemory when it failed over its memory limit.
var (
	ErrCompilerTimeout = run.ErrTimeout
	ErrCompilerMemory  = run.ErrOverMemory
)

// maxCompilerStderr is how much of the compiler's diagnostics is kept for
// the error; a header can make it print without end.
const maxCompilerStderr = limits.CompilerStderr

// runCompiler runs the compiler ccPath (called cc in messages) with args,
// through run: its own process group, killed whole on timeout or
// interrupt, under an address-space limit that binds cc1 and as too.
//
// A confined compile (conf set) runs under Landlock, with TMPDIR set to
// dir, where the driver writes its assembly between cc1 and as.
func runCompiler(ctx context.Context, cc, ccPath string, args []string, opt HeaderOptions, conf *confinement, dir string) error {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultCompileTimeout
	}
	mem := opt.MaxMemory
	if mem <= 0 {
		mem = DefaultCompileMemory
	}
	cmd := run.Cmd{Path: ccPath, Name: cc, Args: args, Timeout: timeout, MaxMemory: mem, MaxStderr: maxCompilerStderr}
	if conf != nil {
		cmd.Confine = conf.landlock(dir)
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "TMPDIR=") {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(cmd.Env, "TMPDIR="+dir)
	}
	_, err := cmd.Run(ctx)
	return err
}
