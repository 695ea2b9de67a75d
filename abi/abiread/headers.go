package abiread

import (
	"bytes"
	"context"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/internal/limits"
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
	// Opaque are type names or globs kept by size and alignment only:
	// their members, and the types only they reach, are not read.
	Opaque []string
	// Absent makes what is missing (a type, constant or header) part of
	// the answer (HeaderResult.Absent) instead of an error.
	Absent bool
	// Timeout ends the compiler and everything it started; 0 means
	// DefaultCompileTimeout.
	Timeout time.Duration
	// MaxMemory is the address space (RLIMIT_AS) the compiler and each
	// process it starts may use, in bytes; 0 means DefaultCompileMemory.
	MaxMemory int64
	// Root, when set, confines the compile to the tree under it (a
	// stranger's headers): a compile that read a file outside it, other
	// than the compiler's system headers, fails with an *OutsideError
	// and none of its output, and a failed compile's diagnostics are
	// kept only when located inside it (confine.go).
	Root string
}

// ErrNoCompiler is wrapped by Headers when the C compiler is not on PATH.
var ErrNoCompiler = errors.New("c compiler not found on PATH")

var constName = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

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
// opt.Types (and all they reach) and the constants opt.Consts. A type,
// constant or header that is missing is an error (*MissingError) naming
// every one; CompileHeaders with opt.Absent records them instead.
func Headers(ctx context.Context, opt HeaderOptions) (*abi.ABI, error) {
	opt.Absent = false
	r, err := CompileHeaders(ctx, opt)
	if err != nil {
		return nil, err
	}
	return r.ABI, nil
}

// HeaderResult is one compile of a header set.
type HeaderResult struct {
	ABI *abi.ABI
	// Headers are the headers included, globs expanded, in order.
	Headers []string
	// Absent is what was asked for and is not there.
	Absent Absent
	// Deps are the files the compiler read (its -MD list), as it named
	// them, the translation unit abifloor wrote left out.
	Deps []string
}

// Absent lists what a header set lacks: types and opaque types (patterns
// that matched nothing), constants, and headers (names, or globs that
// matched no file, in no include directory).
type Absent struct {
	Headers []string `json:"headers,omitempty"`
	Types   []string `json:"types,omitempty"`
	Consts  []string `json:"constants,omitempty"`
}

// Empty reports whether nothing is absent.
func (a Absent) Empty() bool { return len(a.Headers)+len(a.Types)+len(a.Consts) == 0 }

// MissingError is every type, constant and header asked for that is not
// there, at once.
type MissingError struct {
	Absent
	Headers []string // the headers that were read
}

func (e *MissingError) Error() string {
	var parts []string
	for _, t := range e.Absent.Types {
		parts = append(parts, fmt.Sprintf("no type matches %q", t))
	}
	if len(e.Absent.Consts) > 0 {
		parts = append(parts, "no constant "+strings.Join(e.Absent.Consts, ", "))
	}
	if len(e.Absent.Headers) > 0 {
		parts = append(parts, "no header "+strings.Join(e.Absent.Headers, ", "))
	}
	hs := strings.Join(e.Headers, ", ")
	if len(hs) > 200 {
		hs = fmt.Sprintf("%d headers", len(e.Headers))
	}
	return strings.Join(parts, "; ") + " in " + hs
}

// ConflictError is a header set the compiler refused: headers that cannot
// be compiled together, or one that does not compile at all. Lines are
// the compiler's first error lines, which name the conflict.
type ConflictError struct {
	Name  string // the compiler
	Lines []string
	Err   error
}

func (e *ConflictError) Error() string {
	return e.Name + " failed: the headers do not compile together: " + strings.Join(e.Lines, "; ")
}

func (e *ConflictError) Unwrap() error { return e.Err }

// expandHeaders resolves each header, a name or a glob relative to the
// include directories, into the names that exist: a glob matches in every
// include directory, in order, each name once; a name that exists in no
// include directory (nor as a path) is absent.
func expandHeaders(headers, includes []string) (out, absent []string) {
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for _, h := range headers {
		if !strings.ContainsAny(h, "*?[") {
			found := filepath.IsAbs(h) && exists(h)
			for _, inc := range includes {
				found = found || exists(filepath.Join(inc, h))
			}
			if found || len(includes) == 0 && exists(h) {
				add(h)
			} else {
				absent = append(absent, h)
			}
			continue
		}
		var got []string
		for _, inc := range includes {
			ms, err := filepath.Glob(filepath.Join(inc, h))
			if err != nil {
				break
			}
			for _, m := range ms {
				if r, err := filepath.Rel(inc, m); err == nil && exists(m) {
					got = append(got, filepath.ToSlash(r))
				}
			}
		}
		sort.Strings(got)
		for _, g := range got {
			add(g)
		}
		if len(got) == 0 {
			absent = append(absent, h)
		}
	}
	return out, absent
}

func exists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// CompileHeaders is Headers with what is absent as data (opt.Absent) and
// the compiler's dependency list. Each constant is compiled guarded
// (#ifdef NAME), so a missing one costs nothing; a name that is not a
// macro is looked up among the enumerators in the debug info.
func CompileHeaders(ctx context.Context, opt HeaderOptions) (*HeaderResult, error) {
	cc, err := opt.Compiler()
	if err != nil {
		return nil, err
	}
	ccPath, err := run.LookPath(cc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cc, ErrNoCompiler)
	}
	res := &HeaderResult{}
	var src bytes.Buffer
	// One type of its own, so the object has debug info even when every
	// header is absent.
	src.WriteString("typedef int abifloor_unit_t;\n")
	res.Headers, res.Absent.Headers = expandHeaders(opt.Headers, opt.Includes)
	for _, h := range res.Headers {
		fmt.Fprintf(&src, "#include \"%s\"\n", strings.ReplaceAll(h, `"`, `\"`))
	}
	for _, c := range opt.Consts {
		if !constName().MatchString(c) {
			return nil, fmt.Errorf("constant %q is not a C identifier", c)
		}
		// Not static and used: -O0 keeps the object and its bytes in
		// the data of the .o, where they are read back below.
		fmt.Fprintf(&src, "#ifdef %s\n__attribute__((used)) const unsigned long long abifloor_const_%s = (unsigned long long)(%s);\n#endif\n", c, c, c)
	}
	dir, err := os.MkdirTemp("", "abifloor-headers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	tu := filepath.Join(dir, "abifloor.c")
	obj := filepath.Join(dir, "abifloor.o")
	dep := filepath.Join(dir, "abifloor.d")
	if err := os.WriteFile(tu, src.Bytes(), 0o644); err != nil {
		return nil, err
	}
	// -w and -fmax-errors: no warnings to format, and a header set that
	// does not compile stops early; no caret lines, no fix-it hints.
	args := []string{"-g", "-O0", "-fno-eliminate-unused-debug-types", "-w", "-fmax-errors=8",
		"-fno-diagnostics-show-caret", "-fno-diagnostics-show-option", "-fdiagnostics-color=never",
		"-MD", "-MF", dep, "-c", "-o", obj}
	for _, i := range opt.Includes {
		args = append(args, "-I", i)
	}
	args = append(args, opt.Flags...)
	args = append(args, tu)
	var conf *confinement
	if opt.Root != "" {
		if conf, err = newConfinement(ctx, opt.Root, ccPath, tu); err != nil {
			return nil, err
		}
	}
	if err := runCompiler(ctx, cc, ccPath, args, opt, conf, dir); err != nil {
		var re *run.Error
		if errors.As(err, &re) && re.ExitCode > 0 && ctx.Err() == nil {
			keep := func(string) bool { return true }
			if conf != nil {
				// A compile that failed after reading a file outside
				// shows nothing of its output.
				if err := conf.check(readDeps(dep, tu)); err != nil {
					return nil, err
				}
				// Landlock stopped it opening a file outside.
				if err := conf.denied(re.Stderr); err != nil {
					return nil, err
				}
				keep = conf.keepLine
			}
			if lines := errorLines(re.Stderr, dir, keep); len(lines) > 0 {
				return nil, &ConflictError{Name: cc, Lines: lines, Err: scrub(err)}
			}
		}
		if conf != nil {
			if errors.As(err, &re) && re.ExitCode > 0 {
				return nil, fmt.Errorf("%w (no diagnostic located inside the headers' tree)", scrub(err))
			}
			return nil, scrub(err)
		}
		return nil, err
	}
	res.Deps = readDeps(dep, tu)
	if conf != nil {
		if err := conf.check(res.Deps); err != nil {
			return nil, err
		}
	}
	if err := fromObject(ctx, obj, opt, res); err != nil {
		return nil, err
	}
	if !opt.Absent && !res.Absent.Empty() {
		return nil, &MissingError{Absent: res.Absent, Headers: res.Headers}
	}
	return res, nil
}

// errorLines are the compiler's error lines and the notes that name the
// other side of a conflict, the temporary directory's name taken out, at
// most five.
func errorLines(stderr, dir string, keep func(string) bool) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if !keep(l) {
			continue
		}
		// An error, and the notes that say where the other side of a
		// conflict is ("originally defined here", "previous declaration").
		if !strings.Contains(l, "error:") && !(len(out) > 0 && strings.Contains(l, "note:") && (strings.Contains(l, "defined") || strings.Contains(l, "previous"))) {
			continue
		}
		l = strings.ReplaceAll(l, dir+"/", "")
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		out = append(out, strings.TrimSpace(l))
		if len(out) == 5 {
			break
		}
	}
	return out
}

// maxDeps bounds the dependency file read back.
const maxDeps = 16 << 20

// readDeps reads a make rule written by -MD: the target, then every file
// the compiler read, backslash-newlines joining lines and "\ " an escaped
// space.
func readDeps(dep, tu string) []string {
	in, err := input.Open(dep, nil, nil)
	if err != nil {
		return nil
	}
	defer in.Close()
	b := make([]byte, min(in.Size, maxDeps))
	n, _ := in.FD.ReadAt(b, 0)
	s := strings.ReplaceAll(string(b[:n]), "\\\n", " ")
	_, s, _ = strings.Cut(s, ": ")
	s = strings.ReplaceAll(s, "\\ ", "\x00")
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(s) {
		f = strings.ReplaceAll(f, "\x00", " ")
		if f == tu || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// fromObject reads the compiled translation unit.
func fromObject(ctx context.Context, obj string, opt HeaderOptions, res *HeaderResult) error {
	in, err := input.Open(obj, nil, make([]byte, 64))
	if err != nil {
		return err
	}
	defer in.Close()
	if !elfx.IsELF(in.Head) {
		return fmt.Errorf("%s: %w", obj, elfx.ErrNotELF)
	}
	xf, err := elfx.NewFileHead(in.FD, in.Size, in.Head)
	if err != nil {
		return fmt.Errorf("%s: %w", obj, err)
	}
	arch := xf.Arch()
	a := &abi.ABI{Schema: abi.Schema, Arch: arch, DebugInfo: abi.DebugHeaders, Symbols: []abi.Symbol{}, Types: map[string]*abi.Type{}}
	res.ABI = a
	// The compiler's own output: its debug sections are not bounded
	// beyond the file, as an untrusted file's are.
	d, _, err := relocatedDWARF(xf, 1<<62)
	if err != nil {
		return fmt.Errorf("%s: DWARF: %w", obj, err)
	}
	ix, err := scan(ctx, d, true, nil) // the compiler's DWARF: names unbounded
	if err != nil {
		return fmt.Errorf("%s: DWARF: %w", obj, err)
	}
	// A name without glob characters is looked up, not matched against
	// every name (hundreds of names × tens of thousands of types).
	pos := make(map[string]int, len(ix.names))
	for i, key := range ix.names {
		if _, ok := pos[key]; !ok {
			pos[key] = i
		}
	}
	literal := func(pat string) []string {
		var got []int
		for _, k := range []string{pat, "struct " + pat, "union " + pat, "enum " + pat, "class " + pat} {
			if i, ok := pos[k]; ok && matchType(pat, k) {
				got = append(got, i)
			}
		}
		sort.Ints(got)
		keys := make([]string, len(got))
		for j, i := range got {
			keys[j] = ix.names[i]
		}
		return keys
	}
	match := func(pats []string) ([]string, error) {
		var keys []string
		for _, pat := range pats {
			if _, err := path.Match(pat, ""); err != nil {
				return nil, fmt.Errorf("type pattern %q: %w", pat, err)
			}
			if !strings.ContainsAny(pat, "*?[\\") {
				got := literal(pat)
				if len(got) == 0 {
					res.Absent.Types = append(res.Absent.Types, pat)
				}
				for _, key := range got {
					if !contains(keys, key) {
						keys = append(keys, key)
					}
				}
				continue
			}
			found := false
			for _, key := range ix.names {
				if matchType(pat, key) {
					found = true
					if !contains(keys, key) {
						keys = append(keys, key)
					}
				}
			}
			if !found {
				res.Absent.Types = append(res.Absent.Types, pat)
			}
		}
		return keys, nil
	}
	opaque, err := match(opt.Opaque)
	if err != nil {
		return err
	}
	roots, err := match(opt.Types)
	if err != nil {
		return err
	}
	b := newBuilder(dwarfSource{r: d.Reader()}, ix, a, limits.TypeNodes)
	b.bigEndian = xf.ByteOrder() == binary.BigEndian
	at := func(b *builder, key string) {
		if off, ok := ix.defs[key]; ok {
			b.at(off, 0)
		} else if off, ok := ix.decls[key]; ok {
			b.at(off, 0)
		}
	}
	for _, key := range roots {
		if !contains(opaque, key) {
			a.Roots = append(a.Roots, key)
		}
	}
	a.Sort()
	for _, key := range a.Roots {
		at(b, key)
	}
	// An opaque type is read on its own, and only its size and alignment
	// stay: a base type of that size named by its alignment.
	for _, key := range opaque {
		if contains(a.Roots, key) {
			continue
		}
		oa := &abi.ABI{Types: map[string]*abi.Type{}}
		ob := newBuilder(dwarfSource{r: d.Reader()}, ix, oa, limits.TypeNodes)
		ob.bigEndian = b.bigEndian
		at(ob, key)
		t := oa.Types[key]
		if t == nil {
			res.Absent.Types = append(res.Absent.Types, key)
			continue
		}
		size, align := layoutOf(t, oa.Types, 0)
		a.Types[key] = &abi.Type{Kind: abi.Base, Name: fmt.Sprintf("opaque, aligned %d", align), Size: size}
		a.Roots = append(a.Roots, key)
	}
	consts, absent, err := readConsts(xf, d, opt.Consts)
	if err != nil {
		return fmt.Errorf("%s: %w", obj, err)
	}
	a.Constants = consts
	res.Absent.Consts = absent
	a.Sort()
	return nil
}

// layoutOf is the size and alignment of t: alignment is the largest of
// its parts', or 1 when its members sit where that alignment would not put
// them (a packed struct).
func layoutOf(t *abi.Type, types map[string]*abi.Type, depth int) (size, align int64) {
	if t == nil || depth > 64 {
		return 0, 1
	}
	if t.Ref != "" {
		return layoutOf(types[t.Ref], types, depth+1)
	}
	switch t.Kind {
	case abi.Typedef, abi.Const, abi.Volatile, abi.Restrict:
		return layoutOf(t.Elem, types, depth+1)
	case abi.Array:
		_, al := layoutOf(t.Elem, types, depth+1)
		return t.Size, al
	case abi.Struct, abi.Union:
		align = 1
		packed := false
		for _, m := range t.Members {
			_, al := layoutOf(m.Type, types, depth+1)
			if m.BitSize == 0 && m.Offset%al != 0 {
				packed = true
			}
			align = max(align, al)
		}
		if packed || t.Size%align != 0 {
			align = 1
		}
		return t.Size, align
	}
	if t.Size <= 0 {
		return t.Size, 1
	}
	return t.Size, min(t.Size, 16)
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
// section data of the relocatable object; a name with no object (not a
// macro) is looked for among the enumerators in the debug info, and is
// absent when it is not there either.
func readConsts(f *elfx.File, d *dwarf.Data, names []string) ([]abi.Constant, []string, error) {
	if len(names) == 0 {
		return nil, nil, nil
	}
	syms, err := f.StaticSymbols()
	if err != nil {
		return nil, nil, fmt.Errorf("symbol table: %w", err)
	}
	secs, err := f.Sections()
	if err != nil {
		return nil, nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want["abifloor_const_"+n] = true
	}
	var out []abi.Constant
	data := map[elf.SectionIndex][]byte{}
	for _, s := range syms {
		if !want[s.Name] || s.Size != 8 || int(s.Section) >= len(secs) || s.Section == elf.SHN_UNDEF {
			continue
		}
		sec := &secs[s.Section]
		delete(want, s.Name)
		if sec.Type == elf.SHT_NOBITS {
			out = append(out, abi.Constant{Name: strings.TrimPrefix(s.Name, "abifloor_const_")})
			continue
		}
		b, ok := data[s.Section]
		if !ok {
			if b, err = f.SectionData(sec, nil); err != nil {
				return nil, nil, fmt.Errorf("constant %s: %w", s.Name, err)
			}
			data[s.Section] = b
		}
		if s.Value > uint64(len(b)) || uint64(len(b))-s.Value < 8 {
			return nil, nil, fmt.Errorf("constant %s: past the end of its section", s.Name)
		}
		out = append(out, abi.Constant{Name: strings.TrimPrefix(s.Name, "abifloor_const_"), Value: f.ByteOrder().Uint64(b[s.Value:])})
	}
	if len(want) > 0 {
		r := d.Reader()
		for len(want) > 0 {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if e.Tag != dwarf.TagEnumerator {
				continue
			}
			name, _ := e.Val(dwarf.AttrName).(string)
			if !want["abifloor_const_"+name] {
				continue
			}
			var v uint64
			switch c := e.Val(dwarf.AttrConstValue).(type) {
			case int64:
				v = uint64(c)
			case uint64:
				v = c
			default:
				continue
			}
			delete(want, "abifloor_const_"+name)
			out = append(out, abi.Constant{Name: name, Value: v})
		}
	}
	var absent []string
	for _, n := range names {
		if want["abifloor_const_"+n] {
			absent = append(absent, n)
		}
	}
	return out, absent, nil
}
