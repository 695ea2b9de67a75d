package glibc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/internal/run"
)

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
// It reports whether it cut the members out that way; when it cannot (no
// link editor for the compiler, or one that refuses -r with
// --gc-sections), it compiles each member alone as before.
func (b *builder) polyfillObjects(arch, work string, defs []polyfillDef) (objs []string, shared bool, err error) {
	if len(defs) == 0 {
		return nil, true, nil
	}
	objs = make([]string, len(defs))
	for i, d := range defs {
		objs[i] = filepath.Join(work, "compat-"+d.name+".o")
	}
	sharedErr := b.cutPolyfills(arch, work, defs, objs)
	if sharedErr == nil {
		return objs, true, nil
	}
	if err := b.compileEach(arch, work, defs); err != nil {
		return nil, false, fmt.Errorf("%w\n(compiled alone after the shared unit failed: %v)", err, sharedErr)
	}
	return objs, false, nil
}

// cutPolyfills compiles the unit of defs and cuts each member out of it
// into objs.
func (b *builder) cutPolyfills(arch, work string, defs []polyfillDef, objs []string) error {
	ld, err := b.tool("ld")
	if err != nil {
		return err
	}
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
			errs[i] = b.run(ld, "-r", "--gc-sections", "-u", d.name, "-o", objs[i], whole)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.Remove(whole)
}

// compileEach compiles each polyfill of defs alone into
// work/compat-NAME.o: the compiler driver compiles a batch of files, each
// to NAME.o in its working directory; batches, as many as may run at once.
func (b *builder) compileEach(arch, work string, defs []polyfillDef) error {
	srcs := make([]string, len(defs))
	for i, d := range defs {
		srcs[i] = filepath.Join(work, "compat-"+d.name+".c")
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
