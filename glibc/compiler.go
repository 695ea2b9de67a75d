package glibc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/abifloor/abifloor/elfx"
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
}

// ProbeCompiler finds cc on PATH and asks it for its target (one fast
// -dumpmachine run).
func ProbeCompiler(ctx context.Context, cc string) (*Compiler, error) {
	return ProbeCompilerIn(ctx, cc, "")
}

// ProbeCompilerIn is ProbeCompiler that remembers the answer in dir (a
// directory of the user's trusted cache; "" remembers nothing), keyed by
// the compiler's identity: a warm abifloor cc then starts no process
// before the compiler itself, which is most of what it adds to a link.
func ProbeCompilerIn(ctx context.Context, cc, dir string) (*Compiler, error) {
	p, err := exec.LookPath(cc)
	if err != nil {
		return nil, fmt.Errorf("glibc: C compiler %q not found on PATH: %w", cc, err)
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
	c := &Compiler{Name: cc, Path: p, ID: fmt.Sprintf("%s\x00%d\x00%d", p, fi.Size(), fi.ModTime().UnixNano())}
	memo := ""
	if dir != "" {
		sum := sha256.Sum256([]byte(c.ID))
		memo = filepath.Join(dir, hex.EncodeToString(sum[:16]))
		if b, err := readSmall(memo); err == nil && validTriple(strings.TrimSpace(string(b))) {
			c.Triple = strings.TrimSpace(string(b))
			c.Arch = tripleArch(c.Triple)
			return c, nil
		}
	}
	out, err := exec.CommandContext(ctx, p, "-dumpmachine").Output()
	if err != nil {
		return nil, fmt.Errorf("glibc: %s -dumpmachine: %w", cc, err)
	}
	c.Triple = strings.TrimSpace(string(out))
	if !validTriple(c.Triple) {
		return nil, fmt.Errorf("glibc: %s -dumpmachine printed %q, not a target triple", cc, out)
	}
	c.Arch = tripleArch(c.Triple)
	if memo != "" {
		writeAtomic(memo, []byte(c.Triple+"\n")) // best effort: the next run asks again
	}
	return c, nil
}

func validTriple(t string) bool {
	return t != "" && len(t) < 128 && !strings.ContainsAny(t, " \t\n/\x00")
}

// readSmall reads a small regular file without following a link.
func readSmall(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	return io.ReadAll(io.LimitReader(f, 256))
}

// writeAtomic writes b to p through a temporary file and a rename, so a
// concurrent reader sees all of it or nothing.
func writeAtomic(p string, b []byte) {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), p) != nil {
		os.Remove(f.Name())
	}
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
	triple := elfx.ArchTriple(arch)
	return fmt.Errorf("glibc: %s targets %s, not %s: use %s-gcc, or --arch %s", c.Name, c.Triple, arch, triple, c.Arch)
}
