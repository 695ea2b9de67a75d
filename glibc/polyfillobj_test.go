package glibc

import (
	"context"
	"debug/elf"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPolyfillCutAsAlone: every polyfill cut out of the shared unit is the
// member its own compile makes, to the link editor: the same symbol
// defined (type, binding, visibility), the same undefined references (so
// a program that pulls it needs the same versions), unwind entries when
// the lone compile has them, and a non-executable stack note. With each
// architecture's compiler found here, for its widest set (its oldest
// release in the table).
func TestPolyfillCutAsAlone(t *testing.T) {
	for _, tt := range []struct{ arch, target, cc string }{
		{"x86_64", "2.5", "x86_64-linux-gnu-gcc"},
		{"i386", "2.5", "i686-linux-gnu-gcc"},
		{"aarch64", "2.17", "aarch64-linux-gnu-gcc"},
		{"s390x", "2.5", "s390x-linux-gnu-gcc"},
		{"x86_64", "2.5", "clang"},
	} {
		t.Run(tt.cc, func(t *testing.T) {
			ctx := context.Background()
			cc, comp, a := compilerFor(t, tt.cc, tt.arch)
			var defs []polyfillDef
			for _, p := range a.Polyfills(tt.target) {
				d, ok := findPolyfill(p.Name)
				if !ok {
					t.Fatalf("%s: not in the table", p.Name)
				}
				defs = append(defs, d)
			}
			if len(defs) < 15 {
				t.Fatalf("%d polyfills for %s, want the stat family, FORTIFY's checks, ...", len(defs), tt.target)
			}
			b := &builder{ctx: ctx, cc: cc, comp: comp, sem: make(chan struct{}, 4)}
			cut, alone := t.TempDir(), t.TempDir()
			objs, shared, err := b.polyfillObjects(tt.arch, cut, defs)
			if err != nil || !shared {
				t.Fatalf("cut from one unit: %v (shared %v)", err, shared)
			}
			if err := b.compileEach(tt.arch, alone, defs); err != nil {
				t.Fatal(err)
			}
			for i, d := range defs {
				got, want := memberFacts(t, objs[i]), memberFacts(t, filepath.Join(alone, "compat-"+d.name+".o"))
				if got.defined != want.defined || !slices.Equal(got.undefined, want.undefined) {
					t.Errorf("%s: cut defines %s and needs %v; alone %s and %v", d.name, got.defined, got.undefined, want.defined, want.undefined)
				}
				if want.unwind && !got.unwind {
					t.Errorf("%s: cut has no unwind entries, alone has", d.name)
				}
				if !got.stackNote {
					t.Errorf("%s: cut has no .note.GNU-stack, or an executable one", d.name)
				}
			}
		})
	}
}

type facts struct {
	defined   string   // the global symbols defined, but the compiler's own helpers
	undefined []string // sorted
	unwind    bool
	stackNote bool
}

func memberFacts(t *testing.T, path string) facts {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var fc facts
	var defined []string
	for _, s := range syms {
		bind := elf.ST_BIND(s.Info)
		if bind == elf.STB_LOCAL {
			continue
		}
		if s.Section == elf.SHN_UNDEF {
			fc.undefined = append(fc.undefined, s.Name)
			continue
		}
		if strings.HasPrefix(s.Name, "__x86.get_pc_thunk.") {
			continue
		}
		defined = append(defined, fmt.Sprintf("%s/%v/%v/%v", s.Name, elf.ST_TYPE(s.Info), bind, elf.ST_VISIBILITY(s.Other)))
	}
	slices.Sort(defined)
	slices.Sort(fc.undefined)
	fc.defined = strings.Join(defined, " ")
	if s := f.Section(".eh_frame"); s != nil && s.Size > 0 {
		fc.unwind = true
	}
	if s := f.Section(".note.GNU-stack"); s != nil && s.Flags&elf.SHF_EXECINSTR == 0 {
		fc.stackNote = true
	}
	return fc
}

// TestPolyfillFallback: a compiler whose link editor cannot be found still
// gets every member, each compiled alone.
func TestPolyfillFallback(t *testing.T) {
	ctx := context.Background()
	cc, comp, _ := compilerFor(t, "gcc", "x86_64")
	comp.Answer = func(ctx context.Context, args ...string) ([]byte, error) {
		if slices.Equal(args, []string{"-print-prog-name=ld"}) {
			return []byte(filepath.Join(t.TempDir(), "no-ld") + "\n"), nil
		}
		comp := *comp
		comp.Answer = nil
		return comp.Query(ctx, args...)
	}
	stat, _ := findPolyfill("stat")
	fstat, _ := findPolyfill("fstat")
	b := &builder{ctx: ctx, cc: cc, comp: comp, sem: make(chan struct{}, 2)}
	work := t.TempDir()
	objs, shared, err := b.polyfillObjects("x86_64", work, []polyfillDef{stat, fstat})
	if err != nil || shared {
		t.Fatalf("polyfillObjects = %v, shared %v; want compiled alone", err, shared)
	}
	for i, name := range []string{"stat", "fstat"} {
		if got := memberFacts(t, objs[i]).defined; got != name+"/STT_FUNC/STB_GLOBAL/STV_HIDDEN" {
			t.Errorf("%s defines %s", objs[i], got)
		}
	}
}
