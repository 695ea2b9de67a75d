package glibc

import (
	"context"
	"debug/elf"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
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
				got, want := memberFacts(t, objs[i]), memberFacts(t, compatFile(alone, d.name, ".o"))
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

// TestPolyfillFallback: a compiler whose link editor cannot be found, or
// is not GNU ld (gold refuses -r with --gc-sections), still gets every
// member, each compiled alone.
func TestPolyfillFallback(t *testing.T) {
	gold := filepath.Join(t.TempDir(), "no-ld")
	if fixture.Have("ld.gold") {
		gold = fixture.Compiler(t, "ld.gold")
	}
	for name, ld := range map[string]string{"missing": filepath.Join(t.TempDir(), "no-ld"), "gold": gold} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			cc, comp, _ := compilerFor(t, "gcc", "x86_64")
			comp.Answer = func(ctx context.Context, args ...string) ([]byte, error) {
				if slices.Equal(args, []string{"-print-prog-name=ld"}) {
					return []byte(ld + "\n"), nil
				}
				comp := *comp
				comp.Answer = nil
				return comp.Query(ctx, args...)
			}
			stat, _ := findPolyfill("stat")
			fstat, _ := findPolyfill("fstat")
			b := &builder{ctx: ctx, cc: cc, comp: comp, sem: make(chan struct{}, 2)}
			objs, shared, err := b.polyfillObjects("x86_64", t.TempDir(), []polyfillDef{stat, fstat})
			if err != nil || shared {
				t.Fatalf("polyfillObjects = %v, shared %v; want compiled alone", err, shared)
			}
			for i, name := range []string{"stat", "fstat"} {
				if got := memberFacts(t, objs[i]).defined; got != name+"/STT_FUNC/STB_GLOBAL/STV_HIDDEN" {
					t.Errorf("%s defines %s", objs[i], got)
				}
			}
		})
	}
}

// TestDefinesOnly: a member cut with the other polyfills left in it (a
// link editor that ignored --gc-sections) is refused, naming both.
func TestDefinesOnly(t *testing.T) {
	ctx := context.Background()
	cc, comp, _ := compilerFor(t, "gcc", "x86_64")
	stat, _ := findPolyfill("stat")
	fstat, _ := findPolyfill("fstat")
	b := &builder{ctx: ctx, cc: cc, comp: comp, sem: make(chan struct{}, 2)}
	work := t.TempDir()
	objs, shared, err := b.polyfillObjects("x86_64", work, []polyfillDef{stat, fstat})
	if err != nil || !shared {
		t.Fatalf("polyfillObjects = %v, shared %v", err, shared)
	}
	if err := definesOnly(objs[0], "stat"); err != nil {
		t.Errorf("a cut member: %v", err)
	}
	// The whole unit defines both.
	err = definesOnly(filepath.Join(work, "abifloor-polyfills.o"), "stat")
	if err == nil || !strings.Contains(err.Error(), "also defines fstat") {
		t.Errorf("the whole unit as stat's member: %v, want it refused for fstat", err)
	}
	if err := definesOnly(objs[1], "stat"); err == nil || !strings.Contains(err.Error(), "defines fstat") {
		t.Errorf("fstat's member as stat's: %v", err)
	}
}

// TestPolyfillSourcesHoistable: polyfillUnit lifts each source's leading
// feature macro and includes to the top of a unit, so a source may have
// preprocessor lines of those two kinds only before its code, and none of
// them after (an #include inside #if would be lifted out of it; another
// feature macro would land after the headers). A lone polyfill's unit is
// its source as written, behind the HIDDEN and structure-version macros.
func TestPolyfillSourcesHoistable(t *testing.T) {
	for _, d := range polyfillDefs {
		code := false
		for _, l := range strings.Split(d.src, "\n") {
			lifted := strings.HasPrefix(l, "#define _GNU_SOURCE") || strings.HasPrefix(l, "#include ")
			switch {
			case lifted && code:
				t.Errorf("%s: %q after its code", d.name, l)
			case !lifted && strings.HasPrefix(strings.TrimSpace(l), "#") && !code:
				t.Errorf("%s: %q among its leading lines, which a unit lifts", d.name, l)
			case !lifted && strings.TrimSpace(l) != "":
				code = true
			}
			if strings.HasPrefix(strings.TrimSpace(l), "#include") && !strings.HasPrefix(l, "#include ") {
				t.Errorf("%s: an indented %q", d.name, l)
			}
		}
		for _, h := range d.helpers {
			if strings.Contains(h, "#include") || strings.Contains(h, "#define") {
				t.Errorf("%s: a helper with its own preprocessor lines", d.name)
			}
		}
	}
	stat, _ := findPolyfill("stat")
	want := "#define HIDDEN __attribute__((visibility(\"hidden\")))\n#define STAT_VER 1\n#define MKNOD_VER 0\n" + stat.src
	if got := polyfillUnit("x86_64", []polyfillDef{stat}); got != want {
		t.Errorf("stat's unit:\n%s\nwant\n%s", got, want)
	}
	entropy, _ := findPolyfill("getentropy")
	got := polyfillUnit("x86_64", []polyfillDef{entropy})
	want = "#define HIDDEN __attribute__((visibility(\"hidden\")))\n" + strings.Replace(entropy.src, "HIDDEN int getentropy", fillSource+"HIDDEN int getentropy", 1)
	if got != want {
		t.Errorf("getentropy's unit:\n%s\nwant its source with the helper before its code:\n%s", got, want)
	}
}
