package glibc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/run"
)

// Compiler is what the stubs depend on of the C compiler that builds them:
// they are machine code for its target, and the linker script they come
// with relies on its libc_nonshared.a. Both go into the cache key, so a
// cross compiler never finds the host's stubs, and an upgraded compiler
// gets its own entry.
type Compiler struct {
	Name   string // as given: gcc
	Path   string // absolute, symbolic links resolved
	Triple string // what -dumpmachine prints: x86_64-linux-gnu
	Arch   string // the architecture of Triple, as the database names it
	// ID identifies this compiler binary, as ccache's default
	// compiler_check does: its path, size and modification time.
	ID string
	// Answer, when set, answers a query (-dumpmachine,
	// -print-file-name=X) in place of running the compiler: the compiler
	// wrapper sets it to answers remembered in its cache, so that every
	// query glibc makes of a compiler goes through one mechanism.
	Answer func(ctx context.Context, args ...string) ([]byte, error)
}

// Query runs the compiler with a query's arguments and returns what it
// printed (through Answer when set).
func (c *Compiler) Query(ctx context.Context, args ...string) ([]byte, error) {
	if c.Answer != nil {
		return c.Answer(ctx, args...)
	}
	return run.Output(ctx, c.Path, args...)
}

// ProbeCompiler finds cc on PATH and asks it for its target (one fast
// -dumpmachine run).
func ProbeCompiler(ctx context.Context, cc string) (*Compiler, error) {
	c, err := FindCompiler(cc)
	if err != nil {
		return nil, err
	}
	return c, c.AskTarget(ctx)
}

// FindCompiler finds cc on PATH and identifies it, without running it:
// Triple and Arch are left for AskTarget or SetTriple, so a caller can
// remember a compiler's target by its ID.
func FindCompiler(cc string) (*Compiler, error) {
	p, err := run.LookPath(cc)
	if err != nil {
		return nil, &CompilerError{Name: cc, Err: err}
	}
	if p, err = filepath.Abs(p); err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("glibc: C compiler %s: %w", cc, err)
	}
	return &Compiler{Name: cc, Path: p, ID: fmt.Sprintf("%s\x00%d\x00%d", p, fi.Size(), fi.ModTime().UnixNano())}, nil
}

// AskTarget runs the compiler with -dumpmachine and sets Triple and Arch.
func (c *Compiler) AskTarget(ctx context.Context) error {
	out, err := c.Query(ctx, "-dumpmachine")
	if err != nil {
		return fmt.Errorf("glibc: %s -dumpmachine: %w", c.Name, err)
	}
	return c.SetTriple(string(out))
}

// CompilerError is a C compiler that is not on PATH.
type CompilerError struct {
	Name string
	Err  error
}

func (e *CompilerError) Error() string {
	return fmt.Sprintf("glibc: C compiler %q not found on PATH: %v", e.Name, e.Err)
}

func (e *CompilerError) Unwrap() error { return e.Err }

// SetTriple sets Triple (as -dumpmachine prints it) and Arch.
func (c *Compiler) SetTriple(out string) error {
	t := strings.TrimSpace(out)
	if t == "" || len(t) > 128 || strings.ContainsAny(t, " \t\n/\x00") {
		return fmt.Errorf("glibc: %s -dumpmachine printed %q, not a target triple", c.Name, out)
	}
	c.Triple, c.Arch = t, tripleArch(t)
	return nil
}

// tripleArch maps a triple's first part to the database's architecture name.
func tripleArch(triple string) string {
	cpu, _, _ := strings.Cut(triple, "-")
	if a, ok := elfx.ParseArch(cpu); ok {
		return a
	}
	return cpu
}

// Targets says whether the compiler builds code for arch (i686 and i386
// are one), with an error that names the compiler to use instead.
func (c *Compiler) Targets(arch string) error {
	if a, ok := elfx.ParseArch(arch); ok {
		arch = a
	}
	if c.Arch == arch {
		return nil
	}
	return &ArchError{Compiler: c.Name, Triple: c.Triple, Want: arch, Have: c.Arch}
}

// ArchError is a compiler that builds code for another architecture than
// the one asked for.
type ArchError struct {
	Compiler, Triple string
	Want, Have       string // architectures: asked for, and the compiler's
}

func (e *ArchError) Error() string {
	return fmt.Sprintf("glibc: %s targets %s, not %s: use %s-gcc", e.Compiler, e.Triple, e.Want, elfx.ArchTriple(e.Want))
}
