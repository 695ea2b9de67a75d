package abidiff_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/report"
)

// buildCxx compiles testdata/NAME.cc with g++ into a shared library.
func buildCxx(t testing.TB, name string) string {
	t.Helper()
	fixture.Need(t, "g++")
	out := filepath.Join(t.TempDir(), "lib"+name+".so")
	cmd := exec.Command("g++", "-shared", "-fPIC", "-g", "-O0", "-o", out, filepath.Join("testdata", name+".cc"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, b)
	}
	return out
}

func symbolNamed(a *abi.ABI, name string) *abi.Symbol {
	for i := range a.Symbols {
		if a.Symbols[i].Name == name {
			return &a.Symbols[i]
		}
	}
	return nil
}

// TestCxxModel: what the C++ fixture's DWARF says is in the model.
func TestCxxModel(t *testing.T) {
	a := load(t, buildCxx(t, "cxx_v1"))
	for name, want := range map[string]string{
		// Defined out of line: the return type and prototype are on the
		// declaration in the class (DW_AT_specification).
		"_ZN3lib4VApp1fEv":               "int(struct lib::VApp *)",
		"_ZN3lib6by_refERNS_5ReordEOS0_": "int(struct lib::Reord &, struct lib::Reord &&)",
		"_ZN3lib4takeEPNS_2v11SE":        "int(struct lib::v1::S *)",
		"area":                           "int(struct lib::Rect *)",
	} {
		s := symbolNamed(a, name)
		if s == nil {
			t.Errorf("%s not exported", name)
			continue
		}
		if got := abi.Spell(s.Type); got != want {
			t.Errorf("%s: type %q, want %q", name, got, want)
		}
	}
	if s := symbolNamed(a, "_ZN3lib4takeEPNS_2v11SE"); s == nil || s.Demangled != "lib::take(lib::v1::S*)" {
		t.Errorf("demangled: %+v", s)
	}
	if s := symbolNamed(a, "area"); s == nil || s.Demangled != "" {
		t.Errorf("a C name is demangled: %+v", s)
	}
	ws := a.Types["struct lib::WithStatic"]
	if ws == nil || ws.Size != 4 || len(ws.Members) != 1 || len(ws.Statics) != 1 || ws.Statics[0].Name != "count" {
		t.Errorf("struct lib::WithStatic = %+v, want one member v and the static count", ws)
	}
	if c := a.Types["enum lib::Color"]; c == nil || !c.EnumClass || c.Size != 2 {
		t.Errorf("enum lib::Color = %+v, want an enum class of 2 bytes", c)
	}
	if d := a.Types["struct lib::Derived"]; d == nil || len(d.Bases) != 1 || d.Bases[0].Type.Ref != "struct lib::Base1" || d.Bases[0].Offset != 0 {
		t.Errorf("struct lib::Derived = %+v, want base lib::Base1 at 0", d)
	}
	v := a.Types["struct lib::VIns"]
	if v == nil {
		t.Fatal("no struct lib::VIns")
	}
	// The destructor's DIE has no slot (-1): GCC gives the two
	// destructors 0 and 1 without saying so.
	want := []abi.Virtual{{Name: "_ZN3lib4VInsD4Ev", Slot: -1}, {Name: "_ZN3lib4VIns1fEv", Slot: 2}, {Name: "_ZN3lib4VIns1hEv", Slot: 3}}
	if !slices.Equal(v.Virtuals, want) {
		t.Errorf("virtuals of lib::VIns = %+v, want %+v", v.Virtuals, want)
	}
	if _, ok := a.Types["struct lib::Box<int>"]; !ok {
		t.Error("the template instance is not named struct lib::Box<int>")
	}
}

// TestCxxRules: one fixture pair per C++ rule.
func TestCxxRules(t *testing.T) {
	old := load(t, buildCxx(t, "cxx_v1"))
	new := load(t, buildCxx(t, "cxx_v2"))
	r := compare(t, old, new, nil)
	types := map[string]abidiff.TypeChange{}
	for _, tc := range r.Types {
		types[tc.Name] = tc
	}
	has := func(typ string, kind abidiff.Kind, text string) {
		t.Helper()
		tc, ok := types[typ]
		if !ok {
			t.Errorf("%s: no change reported", typ)
			return
		}
		if !tc.Incompatible() {
			t.Errorf("%s: compatible: %v", typ, tc.Changes)
		}
		for _, c := range tc.Changes {
			if c.Kind == kind && c.String() == text {
				return
			}
		}
		t.Errorf("%s: no %s change %q in %v", typ, kind, text, tc.Changes)
	}
	has("struct lib::Derived", abidiff.BaseAdded, "base struct lib::Base0 added at offset 0")
	has("struct lib::Derived", abidiff.BaseOffset, "base struct lib::Base1: offset 0 -> 4")
	has("struct lib::VApp", abidiff.VirtualAdded, "virtual lib::VApp::g() added at vtable slot 3")
	has("struct lib::VIns", abidiff.VirtualAdded, "virtual lib::VIns::g() added at vtable slot 3")
	has("struct lib::VIns", abidiff.VirtualSlot, "virtual lib::VIns::h(): vtable slot 3 -> 4")
	has("struct lib::Reord", abidiff.Offset, "member a: offset 0 -> 8")
	has("struct lib::Holder", abidiff.MemberType, "member box: type struct lib::Box<int> -> struct lib::Box<long int>")
	// The inline namespace is in the mangled name: the old function is
	// gone, and says so in C++.
	removed := r.Symbols.Removed()
	if !slices.Equal(removed, []string{"_ZN3lib4takeEPNS_2v11SE"}) || r.Symbols.Changes[0].Demangled != "lib::take(lib::v1::S*)" {
		t.Errorf("removed %q (%+v), want take(lib::v1::S*)", removed, r.Symbols.Changes[0])
	}
	// A class renamed with its members, same layout: names only.
	var area *abidiff.Change
	for i, c := range r.Symbols.Changes {
		if c.Symbol == "area" {
			area = &r.Symbols.Changes[i]
		}
	}
	if area == nil || !area.Compatible || area.Note != "names only, same layout" {
		t.Errorf("area: %+v, want a compatible change of names only", area)
	}
	for _, name := range []string{"struct lib::WithStatic", "enum lib::Color", "struct lib::Base1"} {
		if tc, ok := types[name]; ok {
			t.Errorf("%s unchanged but reported: %v", name, tc.Changes)
		}
	}
	if r.Compatible {
		t.Error("report compatible")
	}
	// Text names the symbols at the start of impact paths in C++ too.
	var b strings.Builder
	r.WriteText(&b, report.Painter{})
	if want := "_ZN3lib6by_refERNS_5ReordEOS0_ → parameter 1 → struct lib::Reord [lib::by_ref(lib::Reord&, lib::Reord&&)]"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
}

// TestCxxSuppressions: libabigail's name of a C++ function is its
// qualified name without parameters.
func TestCxxSuppressions(t *testing.T) {
	old := load(t, buildCxx(t, "cxx_v1"))
	new := load(t, buildCxx(t, "cxx_v2"))
	for _, spec := range []string{
		"[suppress_function]\nname = lib::take",
		// libabigail's ini reader takes "\\(" as "\(" (a backslash
		// escapes the next character), so the regexp's escapes are doubled.
		`[suppress_function]
name_regexp = ^lib::take\\(lib::v1::S\\*\\)$`,
		"[suppress_function]\nsymbol_name = _ZN3lib4takeEPNS_2v11SE",
	} {
		sup, err := abidiff.ParseSuppressions("cxx.abignore", strings.NewReader(spec))
		if err != nil {
			t.Fatal(err)
		}
		r := compare(t, old, new, sup)
		if len(r.Symbols.Removed()) != 0 || r.Filtered.Symbols == 0 {
			t.Errorf("%q: removed %q, filtered %+v", spec, r.Symbols.Removed(), r.Filtered)
		}
	}
}
