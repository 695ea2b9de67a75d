package abi

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/abifloor/abifloor/internal/input"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/run"
)

// HeaderOptions say what to compile and what to keep.
type HeaderOptions struct {
	Includes []string // -I directories
	Headers  []string // included in this order
	// Types are type names or globs (path.Match syntax) matched against
	// the table key ("struct foo") and against the bare name ("foo").
	Types []string
	// Consts are macro or enum constant names to evaluate.
	Consts []string
	// CC is the compiler; empty means "cc", or TARGET-gcc with Arch.
	CC string
	// Arch is a target architecture (aarch64, ...) for a cross compiler.
	Arch  string
	Flags []string // extra compiler flags (-D...)
	// Timeout ends the compiler and everything it started; 0 means
	// DefaultCompileTimeout.
	Timeout time.Duration
	// MaxMemory is the address space (RLIMIT_AS) the compiler and each
	// process it starts may use, in bytes; 0 means DefaultCompileMemory.
	MaxMemory int64
}

// ErrNoCompiler is wrapped by Headers when the C compiler is not on PATH.
var ErrNoCompiler = errors.New("c compiler not found on PATH")

var constName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Compiler is the name of the compiler Headers runs for opt: opt.CC, else
// "cc", or TRIPLE-gcc when opt.Arch is not the host's.
func (opt HeaderOptions) Compiler() (string, error) {
	if opt.CC != "" {
		return opt.CC, nil
	}
	if opt.Arch == "" {
		return "cc", nil
	}
	arch, ok := elfx.ParseArch(opt.Arch)
	if !ok || elfx.ArchTriple(arch) == "" {
		return "", fmt.Errorf("unknown architecture %q", opt.Arch)
	}
	if arch == elfx.HostArch() {
		return "cc", nil
	}
	return elfx.ArchTriple(arch) + "-gcc", nil
}

// Headers compiles a translation unit that includes the headers, with all
// declared types kept in the debug info, and reads the types that match
// opt.Types (and all they reach) and the constants opt.Consts.
func Headers(ctx context.Context, opt HeaderOptions) (*ABI, error) {
	cc, err := opt.Compiler()
	if err != nil {
		return nil, err
	}
	ccPath, err := run.LookPath(cc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cc, ErrNoCompiler)
	}
	var src bytes.Buffer
	for _, h := range opt.Headers {
		fmt.Fprintf(&src, "#include \"%s\"\n", strings.ReplaceAll(h, `"`, `\"`))
	}
	for _, c := range opt.Consts {
		if !constName.MatchString(c) {
			return nil, fmt.Errorf("constant %q is not a C identifier", c)
		}
		// Not static and used: -O0 keeps the object and its bytes in
		// the data of the .o, where they are read back below.
		fmt.Fprintf(&src, "__attribute__((used)) const unsigned long long abifloor_const_%s = (unsigned long long)(%s);\n", c, c)
	}
	dir, err := os.MkdirTemp("", "abifloor-headers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tu := filepath.Join(dir, "abifloor.c")
	obj := filepath.Join(dir, "abifloor.o")
	if err := os.WriteFile(tu, src.Bytes(), 0o644); err != nil {
		return nil, err
	}
	args := []string{"-g", "-O0", "-fno-eliminate-unused-debug-types", "-c", "-o", obj}
	for _, i := range opt.Includes {
		args = append(args, "-I", i)
	}
	args = append(args, opt.Flags...)
	args = append(args, tu)
	if err := runCompiler(ctx, cc, ccPath, args, opt); err != nil {
		return nil, err
	}
	return fromObject(obj, opt)
}

// fromObject reads the compiled translation unit.
func fromObject(obj string, opt HeaderOptions) (*ABI, error) {
	in, err := input.Open(obj, nil, make([]byte, 64))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	xf, err := elfx.FromInput(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", obj, err)
	}
	arch := xf.Arch()
	f, err := elf.NewFile(in.FD)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", obj, err)
	}
	a := &ABI{Schema: Schema, Arch: arch, DebugInfo: DebugHeaders, Symbols: []Symbol{}, Types: map[string]*Type{}}
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%s: DWARF: %w", obj, err)
	}
	ix, err := scan(d, true)
	if err != nil {
		return nil, fmt.Errorf("%s: DWARF: %w", obj, err)
	}
	b := newBuilder(dwarfSource{r: d.Reader()}, ix, a, 1<<22)
	b.bigEndian = f.ByteOrder == binary.BigEndian
	for _, pat := range opt.Types {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("type pattern %q: %w", pat, err)
		}
		found := false
		for _, key := range ix.names {
			if !matchType(pat, key) {
				continue
			}
			found = true
			if !contains(a.Roots, key) {
				a.Roots = append(a.Roots, key)
			}
		}
		if !found {
			return nil, fmt.Errorf("no type matches %q in %s", pat, strings.Join(opt.Headers, ", "))
		}
	}
	a.sortInPlace()
	for _, key := range a.Roots {
		if off, ok := ix.defs[key]; ok {
			b.at(off, 0)
		} else if off, ok := ix.decls[key]; ok {
			b.at(off, 0)
		}
	}
	consts, err := readConsts(f, opt.Consts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", obj, err)
	}
	a.Constants = consts
	a.sortInPlace()
	return a, nil
}

// matchType matches a pattern against a type key and its bare name.
func matchType(pat, key string) bool {
	if ok, _ := path.Match(pat, key); ok {
		return true
	}
	_, bare, found := strings.Cut(key, " ")
	if !found || strings.HasPrefix(key, "unsigned") || strings.HasPrefix(key, "long") || strings.HasPrefix(key, "short") || strings.HasPrefix(key, "signed") {
		return false
	}
	ok, _ := path.Match(pat, bare)
	return ok
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// readConsts reads abifloor_const_NAME objects from the symbol table and
// section data of the relocatable object.
func readConsts(f *elf.File, names []string) ([]Constant, error) {
	if len(names) == 0 {
		return nil, nil
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("symbol table: %w", err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want["abifloor_const_"+n] = true
	}
	var out []Constant
	for _, s := range syms {
		if !want[s.Name] || s.Size != 8 || int(s.Section) >= len(f.Sections) || s.Section == elf.SHN_UNDEF {
			continue
		}
		sec := f.Sections[s.Section]
		if sec.Type == elf.SHT_NOBITS {
			out = append(out, Constant{Name: strings.TrimPrefix(s.Name, "abifloor_const_")})
			continue
		}
		var v [8]byte
		if _, err := sec.ReadAt(v[:], int64(s.Value)); err != nil {
			return nil, fmt.Errorf("constant %s: %w", s.Name, err)
		}
		out = append(out, Constant{Name: strings.TrimPrefix(s.Name, "abifloor_const_"), Value: f.ByteOrder.Uint64(v[:])})
		delete(want, s.Name)
	}
	for n := range want {
		return nil, fmt.Errorf("constant %s not found in the object", strings.TrimPrefix(n, "abifloor_const_"))
	}
	return out, nil
}
