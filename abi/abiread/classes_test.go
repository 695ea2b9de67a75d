package abiread_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/internal/fixture"
)

// build compiles src (named name, which picks the language) into a
// shared library with cc and flags, skipping when cc is absent.
func build(t *testing.T, cc, name, src string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"-shared", "-fPIC", "-O0"}, flags...)
	return fixture.Build(t, cc, dir, name, src, "lib"+strings.TrimSuffix(name, filepath.Ext(name))+".so", args...)
}

func changeTexts(r abidiff.Report) []string {
	var out []string
	for _, c := range r.Symbols.Changes {
		out = append(out, c.String())
	}
	for _, tc := range r.Types {
		for _, c := range tc.Changes {
			out = append(out, tc.Name+": "+c.String())
		}
	}
	return out
}

// TestUnprototypedCompared: a C function defined without a prototype (K&R
// C, void f() {...}) has no DW_AT_prototyped, but its definition lists the
// parameters it takes: they are compared, as libabigail compares them.
// An unprototyped declaration still says nothing about them.
func TestUnprototypedCompared(t *testing.T) {
	const v0 = `
void fun() {}
int kr(a) int a; { return a; }
long proto(int a) { return a; }
`
	const v1 = `
void fun(unsigned a, char b, int c) { (void)a; (void)b; (void)c; }
int kr(a, b) int a; long b; { return a + b; }
long proto(int a) { return a; }
`
	for _, std := range []string{"-std=gnu89", "-std=gnu17"} {
		t.Run(std, func(t *testing.T) {
			old := read(t, build(t, "gcc", "kr0.c", v0, "-g", std))
			new := read(t, build(t, "gcc", "kr1.c", v1, "-g", std))
			for name, want := range map[string][2]string{
				"fun": {"void(void)", "void(unsigned int, char, int)"},
				"kr":  {"int(int)", "int(int, long int)"},
			} {
				o, n := symbol(old, name), symbol(new, name)
				if o == nil || n == nil {
					t.Fatalf("%s not exported", name)
				}
				if got := [2]string{abi.Spell(o.Type), abi.Spell(n.Type)}; got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			r := compare(t, old, new, nil)
			var changed []string
			for _, c := range r.Symbols.Changes {
				if c.Kind == abidiff.SymbolType {
					changed = append(changed, c.Symbol)
				}
			}
			slices.Sort(changed)
			if !slices.Equal(changed, []string{"fun", "kr"}) || r.Exit(false) != abidiff.ExitChange {
				t.Errorf("changed %v, exit %d, want [fun kr] and 4; %v", changed, r.Exit(false), changeTexts(r))
			}
			if len(r.Untyped) != 0 {
				t.Errorf("untyped %v, want none", r.Untyped)
			}
		})
	}
}

// TestUnprototypedDeclaration: a function pointer type without a
// prototype (void (*)()) still takes unknown arguments.
func TestUnprototypedDeclaration(t *testing.T) {
	a := read(t, build(t, "gcc", "decl.c", `
typedef void (*cb)();
void take(cb f) { (void)f; }
`, "-g", "-std=gnu89"))
	s := symbol(a, "take")
	if s == nil {
		t.Fatal("take not exported")
	}
	if got, want := abi.Spell(s.Type), "void(cb)"; got != want {
		t.Fatalf("take: %q, want %q", got, want)
	}
	td := a.Types["cb"]
	if td == nil || td.Elem == nil || td.Elem.Elem == nil || !td.Elem.Elem.Variadic {
		t.Errorf("cb: %+v, want a pointer to a function of unknown arguments", td)
	}
}

const overloads = `
struct Base {
  virtual ~Base();
  virtual int add(int);
  virtual int add(long);
  virtual int add(const char *, int);
  virtual int get() const;
  virtual int get();
};
Base::~Base() {}
int Base::add(int) { return 0; }
int Base::add(long) { return 1; }
int Base::add(const char *, int) { return 2; }
int Base::get() const { return 3; }
int Base::get() { return 4; }
`

// TestVirtualOverloads: overloaded virtual functions are told apart by
// their linkage names, DW_AT_linkage_name or (DWARF 2 and 3, GCC before
// 4.5, older clang) DW_AT_MIPS_linkage_name, so a file diffed with itself
// shows no vtable change.
func TestVirtualOverloads(t *testing.T) {
	for _, dw := range []string{"-gdwarf-2", "-gdwarf-3", "-gdwarf-4", "-gdwarf-5"} {
		t.Run(dw, func(t *testing.T) {
			path := build(t, "g++", "over.cc", overloads, dw)
			a := read(t, path)
			st := a.Types["struct Base"]
			if st == nil {
				t.Fatal("no struct Base")
			}
			var names []string
			for _, v := range st.Virtuals {
				names = append(names, v.Name)
			}
			for _, want := range []string{"_ZN4Base3addEi", "_ZN4Base3addEl", "_ZN4Base3addEPKci", "_ZNK4Base3getEv", "_ZN4Base3getEv"} {
				if !slices.Contains(names, want) {
					t.Errorf("virtuals %v lack %s", names, want)
				}
			}
			sorted := slices.Clone(names)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != len(names) {
				t.Errorf("virtuals share a name: %v", names)
			}
			r := compare(t, a, read(t, path), nil)
			if r.Changed() || r.Exit(false) != 0 {
				t.Errorf("diff X X: exit %d, %v", r.Exit(false), changeTexts(r))
			}
		})
	}
}

// TestMemberBecomesVirtual: a member function that becomes virtual adds a
// vtable entry (or the vtable itself): libabigail calls it incompatible.
func TestMemberBecomesVirtual(t *testing.T) {
	for name, src := range map[string][2]string{
		"first virtual": {
			"struct S { int x; int f(); };\nint S::f() { return x; }\n",
			"struct S { int x; virtual int f(); };\nint S::f() { return x; }\n",
		},
		"before another": {
			"struct S { int x; int f(); virtual int g(); };\nint S::f() { return x; }\nint S::g() { return x; }\n",
			"struct S { int x; virtual int f(); virtual int g(); };\nint S::f() { return x; }\nint S::g() { return x; }\n",
		},
		"declared class": {
			// No key function here: v0 has only S's declaration,
			// listing bar as not virtual; v1 defines S with bar
			// virtual.
			"struct S { void bar(); virtual void baz(); virtual void foo(); };\nvoid S::bar() {}\n",
			"struct S { virtual void f(); virtual void baz(); virtual void foo(); virtual void bar(); };\nvoid S::f() {}\nvoid S::bar() {}\n",
		},
		"after another": {
			"struct S { int x; virtual int g(); int f(); };\nint S::f() { return x; }\nint S::g() { return x; }\n",
			"struct S { int x; virtual int g(); virtual int f(); };\nint S::f() { return x; }\nint S::g() { return x; }\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			old := read(t, build(t, "g++", "v0.cc", src[0], "-g"))
			new := read(t, build(t, "g++", "v1.cc", src[1], "-g"))
			r := compare(t, old, new, nil)
			added := false
			for _, tc := range r.Types {
				for _, c := range tc.Changes {
					added = added || c.Kind == abidiff.VirtualAdded && (c.Member == "S::f()" || name == "declared class" && c.Member == "S::bar()")
				}
			}
			if !added || r.Exit(false) != abidiff.ExitChange|abidiff.ExitIncompatible {
				t.Errorf("exit %d, virtual S::f() added: %v; %v", r.Exit(false), added, changeTexts(r))
			}
		})
	}
}

// TestClangDWARF5: clang's DWARF 5 names strings and addresses by index
// (DW_FORM_strx, DW_FORM_addrx, DW_OP_addrx) and ranges with
// DW_FORM_rnglistx; it is read with its types, virtual overloads keep
// their linkage names, and a file diffed with itself shows nothing.
func TestClangDWARF5(t *testing.T) {
	fixture.Compiler(t, "clang++")
	path := build(t, "clang++", "over.cc", overloads+`
inline int helper(int x) { return x + 1; }
int use(Base *b) { return helper(b->get()); }
int counter = 1;
`, "-gdwarf-5")
	a := read(t, path)
	if a.DebugInfo != abi.DebugDWARF {
		t.Fatalf("debug info %q", a.DebugInfo)
	}
	for name, want := range map[string]string{
		"_Z3useP4Base":    "int(struct Base *)",
		"_ZN4Base3addEl":  "int(struct Base *, long)",
		"_ZNK4Base3getEv": "int(const struct Base *)",
		"counter":         "int",
	} {
		s := symbol(a, name)
		if s == nil {
			t.Errorf("%s not exported", name)
			continue
		}
		if got := abi.Spell(s.Type); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	st := a.Types["struct Base"]
	if st == nil || len(st.Virtuals) < 6 || !slices.ContainsFunc(st.Virtuals, func(v abi.Virtual) bool { return v.Name == "_ZN4Base3addEPKci" }) {
		t.Errorf("struct Base: %+v", st)
	}
	r := compare(t, a, read(t, path), nil)
	if r.Changed() || r.Exit(false) != 0 {
		t.Errorf("diff X X: exit %d, %v", r.Exit(false), changeTexts(r))
	}
}

// TestAnonymousBehindTypedefPointer: typedef struct {...} *P spells
// "struct {...} *" whatever the struct holds; a member it loses is still
// a change the diff reports.
func TestAnonymousBehindTypedefPointer(t *testing.T) {
	const src = `
typedef struct {
  char m1;
#ifdef V0
  char m2;
#endif
} *Struct1Ptr;
char f1(Struct1Ptr s) { return s->m1; }
`
	old := read(t, build(t, "gcc", "anon.c", src, "-g", "-DV0"))
	new := read(t, build(t, "gcc", "anon.c", src, "-g"))
	r := compare(t, old, new, nil)
	removed := false
	for _, tc := range r.Types {
		for _, c := range tc.Changes {
			removed = removed || tc.Name == "Struct1Ptr" && c.Kind == abidiff.MemberRemoved && strings.HasSuffix(c.Path, "m2")
		}
	}
	if !removed || r.Exit(false)&abidiff.ExitChange == 0 {
		t.Errorf("exit %d, m2 removed: %v; %v", r.Exit(false), removed, changeTexts(r))
	}
	if r := compare(t, new, new, nil); r.Changed() {
		t.Errorf("diff X X: %v", changeTexts(r))
	}
}

// TestClassKey: a C++ class declared with the class key is marked Class,
// a struct is not (libabigail's type_kind = class / struct).
func TestClassKey(t *testing.T) {
	a := read(t, build(t, "g++", "cl.cc", "class C { public: int x; int f(); };\nint C::f() { return x; }\nstruct S { int y; };\nint g(S *s) { return s->y; }\n", "-g"))
	if c, s := a.Types["struct C"], a.Types["struct S"]; c == nil || s == nil || !c.Class || s.Class {
		t.Errorf("struct C %+v, struct S %+v: want C a class, S not", c, s)
	}
}

// compare is abidiff.Compare under a context that never ends.
func compare(t testing.TB, old, new *abi.ABI, sup *abidiff.Suppressions) abidiff.Report {
	t.Helper()
	r, err := abidiff.Compare(context.Background(), old, new, sup, abiread.Demangler{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
