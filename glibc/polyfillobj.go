package glibc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/internal/run"
)

// compatFile is work/compat-NAME.EXT: a compat member's source or object
// (the compiler driver names an object after its source).
func compatFile(work, name, ext string) string {
	return filepath.Join(work, "compat-"+name+ext)
}

// polyfillFlags compile a polyfill: without FORTIFY or the stack
// protector (a distribution's compiler may default to them), so that a
// check never calls itself.
var polyfillFlags = []string{"-std=gnu11", "-c", "-O2", "-fPIC", "-U_FORTIFY_SOURCE", "-fno-stack-protector"}

// polyfillObjects writes work/compat-NAME.o for each polyfill of defs, one
// object each, so that a program pulls in (and needs the versions of) only
// the ones it uses.
//
// Each member used to be a compile of its own: a cc1 run that parses the
// C library's headers again, 20 ms of CPU for a few instructions, the most
// of a cold stub build. Instead every polyfill is compiled once, in one
// unit with a section per function and per variable, and each member is
// cut out of that object by the link editor: a relocatable link rooted at
// the member's name that collects unreachable sections (-r --gc-sections
// -u NAME) keeps the name's sections, the static helpers and strings they
// reach, their unwind entries and .note.GNU-stack, and drops the other
// polyfills. An ld run costs about 1.5 ms.
//
// It reports whether it cut the members out that way. Only GNU ld is
// asked to (gold refuses -r with --gc-sections, and lld's behaviour
// there has varied between releases): with another link editor, or none
// found for the compiler, each member is compiled alone, as before. That
// choice is the toolchain's, made the same way every time; any failure on
// the way is the build's error, not a reason to take the other road (an
// entry built by it would hold other bytes under the same key).
func (b *builder) polyfillObjects(arch, work string, defs []polyfillDef) (objs []string, shared bool, err error) {
	if len(defs) == 0 {
		return nil, true, nil
	}
	objs = make([]string, len(defs))
	for i, d := range defs {
		objs[i] = compatFile(work, d.name, ".o")
	}
	ld, err := b.tool("ld")
	if err != nil {
		return objs, false, b.compileEach(arch, work, defs)
	}
	out, err := run.Output(b.ctx, ld, "-v")
	if err != nil {
		return nil, false, fmt.Errorf("glibc: asking %s which link editor it is: %w", ld, err)
	}
	if !bytes.HasPrefix(out, []byte("GNU ld ")) {
		return objs, false, b.compileEach(arch, work, defs)
	}
	return objs, true, b.cutPolyfills(arch, ld, work, defs, objs)
}

// cutPolyfills compiles the unit of defs and cuts each member out of it
// into objs with the link editor ld. Each member must define its name and
// nothing else of the unit's: a link editor that kept the other sections
// would make every member define every polyfill, which a program's link
// would only report as multiple definitions.
func (b *builder) cutPolyfills(arch, ld, work string, defs []polyfillDef, objs []string) error {
	const unit = "abifloor-polyfills"
	if err := os.WriteFile(filepath.Join(work, unit+".c"), []byte(polyfillUnit(arch, defs)), 0o644); err != nil {
		return err
	}
	whole := filepath.Join(work, unit+".o")
	args := append(append([]string(nil), polyfillFlags...), "-ffunction-sections", "-fdata-sections", "-o", whole, "-x", "c", unit+".c")
	if err := b.runIn(work, b.cc, args...); err != nil {
		return err
	}
	errs := make([]error, len(defs))
	var wg sync.WaitGroup
	for i, d := range defs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = b.run(ld, "-r", "--gc-sections", "-u", d.name, "-o", objs[i], whole); errs[i] == nil {
				errs[i] = definesOnly(objs[i], d.name)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// definesOnly checks that the object at path defines name and no other
// global symbol but the compiler's own helpers (i386's
// __x86.get_pc_thunk.bx, hidden in a COMDAT group).
func definesOnly(path, name string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	syms, err := arSymbols(data)
	if err != nil {
		return fmt.Errorf("glibc: %s: %w", path, err)
	}
	found := false
	for _, s := range syms {
		switch {
		case s == name:
			found = true
		case strings.HasPrefix(s, "__x86.get_pc_thunk."):
		default:
			return fmt.Errorf("glibc: %s, cut for %s, also defines %s: the link editor kept sections it should have collected", filepath.Base(path), name, s)
		}
	}
	if !found {
		return fmt.Errorf("glibc: %s, cut for %s, does not define it", filepath.Base(path), name)
	}
	return nil
}

// compileEach compiles each polyfill of defs alone into
// work/compat-NAME.o: the compiler driver compiles a batch of files, each
// to NAME.o in its working directory; batches, as many as may run at once.
func (b *builder) compileEach(arch, work string, defs []polyfillDef) error {
	srcs := make([]string, len(defs))
	for i, d := range defs {
		srcs[i] = compatFile(work, d.name, ".c")
		if err := os.WriteFile(srcs[i], []byte(polyfillUnit(arch, []polyfillDef{d})), 0o644); err != nil {
			return err
		}
	}
	return b.compileBatches(work, polyfillFlags, "c", srcs)
}

// compileBatches compiles srcs (of language lang) with flags in batches,
// as many as may run at once, each file to NAME.o in work.
func (b *builder) compileBatches(work string, flags []string, lang string, srcs []string) error {
	var (
		errs []error
		mu   sync.Mutex
		wg   sync.WaitGroup
	)
	for _, batch := range batches(srcs, cap(b.sem)) {
		// The language before each file: g++'s driver takes a -x for
		// the next file only.
		args := append([]string(nil), flags...)
		for _, src := range batch {
			args = append(args, "-x", lang, src)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := b.runIn(work, b.cc, args...)
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// tool is the compiler's own program name (ar, ld: -print-prog-name),
// found on PATH when the compiler names it bare.
func (b *builder) tool(name string) (string, error) {
	p := name
	if out, err := b.comp.Query(b.ctx, "-print-prog-name="+name); err == nil && strings.TrimSpace(string(out)) != "" {
		p = strings.TrimSpace(string(out))
	}
	found, err := run.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("glibc: %s %q (from %s -print-prog-name=%s) not found: %w", name, p, b.cc, name, err)
	}
	return found, nil
}
