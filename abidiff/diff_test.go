package abidiff_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/report"
)

// buildLib compiles testdata/NAME.c with its version script into a shared
// library with debug info, using cc (skipping when cc is absent).
func buildLib(t testing.TB, cc, name string) string {
	t.Helper()
	if !fixture.Have(cc) {
		t.Skipf("%s not installed", cc)
	}
	out := filepath.Join(t.TempDir(), "lib"+name+".so")
	cmd := exec.Command(cc, "-shared", "-fPIC", "-g", "-O0", "-o", out,
		filepath.Join("testdata", name+".c"), "-Wl,--version-script="+filepath.Join("testdata", name+".map"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	return out
}

func load(t testing.TB, path string) *abi.ABI {
	t.Helper()
	a, err := abiread.Load(context.Background(), path, abiread.Options{NoDefaultDebugDir: true})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFixtureChanges compiles two versions of a small library, for each
// compiler present, and checks every kind of change is found and classed.
func TestFixtureChanges(t *testing.T) {
	for _, cc := range []string{"gcc", "aarch64-linux-gnu-gcc"} {
		t.Run(cc, func(t *testing.T) {
			old := load(t, buildLib(t, cc, "v1"))
			new := load(t, buildLib(t, cc, "v2"))
			if old.DebugInfo != abi.DebugDWARF {
				t.Fatalf("debug_info = %q, want dwarf", old.DebugInfo)
			}
			r := compare(t, old, new, nil)
			wantRemoved := []string{"removed_fn@@LIBT_1.0"}
			wantAdded := []string{"added_fn@@LIBT_2.0", "bumped@@LIBT_2.0"}
			wantChanged := []string{"bumped@@LIBT_1.0 -> bumped@@LIBT_2.0", "version LIBT_2.0 added"}
			if !slices.Equal(r.Symbols.Removed(), wantRemoved) || !slices.Equal(r.Symbols.Added(), wantAdded) || !slices.Equal(r.Symbols.Changed(), wantChanged) {
				t.Errorf("symbols = %q %q %q\nwant %q %q %q", r.Symbols.Removed(), r.Symbols.Added(), r.Symbols.Changed(), wantRemoved, wantAdded, wantChanged)
			}
			if !slices.Equal(r.Private.Removed(), []string{"private_fn@@LIBT_PRIVATE"}) || !slices.Equal(r.Private.Changed(), []string{"version LIBT_PRIVATE removed"}) {
				t.Errorf("private removed = %v, changed %v", r.Private.Removed(), r.Private.Changed())
			}
			wantTypes := map[string][]string{
				"struct point":   {"size 8 -> 12", "member z added at offset 8 (int)"},
				"struct reorder": {"member a: offset 0 -> 8", "member b: offset 8 -> 0"},
				"struct widen":   {"size 8 -> 16", "member v: type int -> long int", "member w: offset 4 -> 8"},
				"enum color":     {"enumerator GREEN: value 1 -> 5", "enumerator BLUE: value 2 -> 6"},
				"struct flags":   {"member b: bit size 3 -> 5", "member c: bit offset 4 -> 6"},
				"union val":      {"size 4 -> 8", "member d added at offset 0 (double)"},
				"struct anon":    {"member pair: size 4 -> 6", "member pair.s3 added at offset 4 (short int)"},
				"PARAMS":         {"size 12 -> 16", "member hObjectNew: offset 8 -> 12", "member pad added at offset 8 (unsigned int)"},
			}
			got := map[string][]string{}
			for _, tc := range r.Types {
				for _, c := range tc.Changes {
					got[tc.Name] = append(got[tc.Name], c.String())
				}
				if !tc.Incompatible() {
					t.Errorf("%s: classed compatible", tc.Name)
				}
			}
			for name, changes := range wantTypes {
				if !slices.Equal(got[name], changes) {
					t.Errorf("%s: changes = %q, want %q", name, got[name], changes)
				}
			}
			for _, unchanged := range []string{"struct node", "struct same"} {
				if _, ok := got[unchanged]; ok {
					t.Errorf("%s reported changed: %q", unchanged, got[unchanged])
				}
				if _, ok := new.Types[unchanged]; !ok {
					t.Errorf("%s missing from the ABI", unchanged)
				}
			}
			if len(got) != len(wantTypes) {
				t.Errorf("changed types = %d, want %d: %v", len(got), len(wantTypes), got)
			}
			if r.Compatible || !r.Changed() {
				t.Errorf("compatible=%v changed=%v, want incompatible change", r.Compatible, r.Changed())
			}
		})
	}
}

// TestSameAndJSON compares a library with itself, and with its own ABI
// JSON, which must be the same ABI.
func TestSameAndJSON(t *testing.T) {
	lib := buildLib(t, "gcc", "v1")
	a := load(t, lib)
	if r := compare(t, a, load(t, lib), nil); r.Changed() || !r.Compatible {
		t.Fatalf("self diff: %+v", r)
	}
	js := filepath.Join(t.TempDir(), "v1.json")
	if err := os.WriteFile(js, a.Canonical(), 0o644); err != nil {
		t.Fatal(err)
	}
	b := load(t, js)
	if b.Fingerprint() != a.Fingerprint() {
		t.Errorf("JSON round trip changed the fingerprint: %s -> %s", a.Fingerprint(), b.Fingerprint())
	}
	if r := compare(t, a, b, nil); r.Changed() {
		t.Errorf("ELF vs its JSON: %+v", r)
	}
}

func TestCompatibleAddition(t *testing.T) {
	a := &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{
		"enum e": {Kind: abi.Enum, Name: "e", Size: 4, Enumerators: []abi.Enumerator{{Name: "A", Value: 0}}},
	}, Symbols: []abi.Symbol{{Name: "f", Version: "V_1", Default: true, Kind: "func", Binding: "global"}}}
	b := &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{
		"enum e": {Kind: abi.Enum, Name: "e", Size: 4, Enumerators: []abi.Enumerator{{Name: "A", Value: 0}, {Name: "B", Value: 1}}},
	}, Symbols: []abi.Symbol{
		{Name: "f", Version: "V_1", Default: true, Kind: "func", Binding: "global"},
		{Name: "g", Version: "V_2", Default: true, Kind: "func", Binding: "global"},
		{Name: "h", Version: "V_PRIVATE", Default: true, Kind: "func", Binding: "global"},
	}}
	r := compare(t, a, b, nil)
	if !r.Compatible || !r.Changed() {
		t.Fatalf("want a compatible change: %+v", r)
	}
	if !slices.Equal(r.Symbols.Added(), []string{"g@@V_2"}) || !slices.Equal(r.Private.Added(), []string{"h@@V_PRIVATE"}) {
		t.Errorf("added = %v, private added = %v", r.Symbols.Added(), r.Private.Added())
	}
	// Removing it again is incompatible, but removing only the private
	// symbol is not.
	if r := compare(t, b, a, nil); r.Compatible {
		t.Errorf("removal classed compatible")
	}
	c := *b
	c.Symbols = b.Symbols[:2]
	if r := compare(t, b, &c, nil); !r.Compatible || !slices.Equal(r.Private.Removed(), []string{"h@@V_PRIVATE"}) {
		t.Errorf("private removal: %+v", r)
	}
}

func TestSuppressions(t *testing.T) {
	tests := []struct {
		rules   string
		wantErr string
	}{
		{"symbol ^removed_\ntype ^struct (point|widen)$\n# comment\n\n", ""},
		{"symbol", "want \"symbol REGEX\""},
		{"frob x", "unknown rule \"frob\""},
		{"type (", "missing closing )"},
	}
	for _, tt := range tests {
		_, err := abidiff.ParseSuppressions("sup", strings.NewReader(tt.rules))
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: err = %v, want %q", tt.rules, err, tt.wantErr)
		}
	}
	sup, _ := abidiff.ParseSuppressions("sup", strings.NewReader(tests[0].rules))
	r := compare(t, load(t, buildLib(t, "gcc", "v1")), load(t, buildLib(t, "gcc", "v2")), sup)
	if len(r.Symbols.Removed()) != 0 {
		t.Errorf("removed_fn not suppressed: %v", r.Symbols.Removed())
	}
	for _, tc := range r.Types {
		if tc.Name == "struct point" || tc.Name == "struct widen" {
			t.Errorf("%s not suppressed", tc.Name)
		}
	}
}

// TestPrivateTypes: a type only private symbols use may change freely.
func TestPrivateTypes(t *testing.T) {
	mk := func(size int64) *abi.ABI {
		return &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF,
			Types: map[string]*abi.Type{
				"struct priv": {Kind: abi.Struct, Name: "priv", Size: size},
				"int":         {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
			},
			Symbols: []abi.Symbol{
				{Name: "pub", Version: "V_1", Default: true, Kind: "func", Binding: "global", Type: &abi.Type{Kind: abi.Func, Elem: &abi.Type{Ref: "int"}}},
				{Name: "impl", Version: "V_PRIVATE", Default: true, Kind: "func", Binding: "global",
					Type: &abi.Type{Kind: abi.Func, Elem: &abi.Type{Ref: "int"}, Params: []*abi.Type{{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: "struct priv"}}}}},
			}}
	}
	r := compare(t, mk(8), mk(16), nil)
	if !r.Compatible || len(r.Types) != 0 || len(r.PrivateTypes) != 1 || r.PrivateTypes[0].Name != "struct priv" {
		t.Errorf("report: %+v", r)
	}
}

// TestChangeData: changes are data, and their text is rendered from it.
// A change of encoding alone is an encoding change, not "size 4 -> 4".
func TestChangeData(t *testing.T) {
	mk := func(enc string, members ...abi.Member) *abi.ABI {
		return &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{
			"wchar": {Kind: abi.Base, Name: "wchar", Size: 4, Encoding: enc},
			"struct s": {Kind: abi.Struct, Name: "s", Size: 8, Members: []abi.Member{
				{Name: "a", Type: &abi.Type{Ref: "wchar"}},
				{Offset: 4, Type: &abi.Type{Kind: abi.Struct, Size: 4, Members: members}},
			}},
		}}
	}
	old := mk("signed", abi.Member{Name: "x", Type: &abi.Type{Ref: "wchar"}})
	new := mk("unsigned", abi.Member{Name: "x", Type: &abi.Type{Ref: "wchar"}}, abi.Member{Name: "y", Offset: 2, Type: &abi.Type{Ref: "wchar"}})
	r := compare(t, old, new, nil)
	want := []abidiff.Change{
		{Kind: abidiff.MemberAdded, Type: "struct s", Path: "(anonymous 1).y", New: "wchar", At: "2", Compatible: true},
		{Kind: abidiff.Encoding, Type: "wchar", Old: "signed", New: "unsigned"},
	}
	var got []abidiff.Change
	for _, tc := range r.Types {
		got = append(got, tc.Changes...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changes = %+v\nwant %+v", got, want)
	}
	for c, text := range map[abidiff.Change]string{
		want[0]: "member (anonymous 1).y added at offset 2 (wchar)",
		want[1]: "encoding signed -> unsigned",
		{Kind: abidiff.EnumeratorValue, Path: "m.GREEN", Old: "1", New: "5"}:           "member m: enumerator GREEN: value 1 -> 5",
		{Kind: abidiff.SymbolType, Symbol: "f@@V", Old: "int", New: "long", Note: "x"}: "f@@V: type int -> long (x)",
		{Kind: abidiff.ConstantValue, Constant: "IOC", Old: "0x1", New: "0x2"}:         "IOC: value 0x1 -> 0x2",
		{Kind: abidiff.Declaration, Path: "p", Old: "defined", New: "declared"}:        "member p: now declared only",
		{Kind: abidiff.SymbolVersion, Symbol: "f@@V_1", Old: "f@@V_1", New: "f@@V_2"}:  "f@@V_1 -> f@@V_2",
		{Kind: abidiff.Size, Old: "4", New: "8"}:                                       "size 4 -> 8",
	} {
		if c.String() != text {
			t.Errorf("%+v: %q, want %q", c, c.String(), text)
		}
	}
	// JSON keeps the text lists and carries the data in details; it reads
	// back to the same report.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"changes":["member (anonymous 1).y added at offset 2 (wchar)"]`, `"details":[{"kind":"member-added"`, `"removed":[]`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("JSON lacks %s:\n%s", s, b)
		}
	}
	var back abidiff.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Types, r.Types) {
		t.Errorf("round trip: %+v\nwant %+v", back.Types, r.Types)
	}
}

// TestTypedefBomb: 24 typedefs in ABI JSON, each a function pointer of the
// two before it. Expanded as a tree that is 2^23 nodes; each typedef must be
// expanded once, and the expansions compared pair by pair, not spelled.
func TestTypedefBomb(t *testing.T) {
	var types strings.Builder
	types.WriteString(`"int": {"kind": "base", "name": "int", "size": 4, "encoding": "signed"},
"t0": {"kind": "typedef", "name": "t0", "elem": {"ref": "int"}},
"t1": {"kind": "typedef", "name": "t1", "elem": {"ref": "int"}}`)
	fn := func(a, b string) string {
		return fmt.Sprintf(`{"kind": "pointer", "size": 8, "elem": {"kind": "func", "elem": {"ref": %q}, "params": [{"ref": %q}, {"ref": %q}]}}`, a, a, b)
	}
	for i := 2; i < 24; i++ {
		fmt.Fprintf(&types, ",\n\"t%d\": {\"kind\": \"typedef\", \"name\": \"t%d\", \"elem\": %s}", i, i, fn(fmt.Sprintf("t%d", i-1), fmt.Sprintf("t%d", i-2)))
	}
	abiJSON := func(param string) string {
		return `{"schema": 1, "debug_info": "dwarf", "types": {` + types.String() + `},
"symbols": [{"name": "f", "kind": "func", "binding": "global", "type": {"kind": "func", "elem": {"ref": "int"}, "params": [` + param + `]}}]}`
	}
	dir := t.TempDir()
	write := func(name, param string) *abi.ABI {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(abiJSON(param)), 0o644)
		return load(t, p)
	}
	old := write("old.json", `{"ref": "t23"}`)
	for _, tt := range []struct {
		param, note string
	}{
		{fn("t22", "t21"), "typedef names only"}, // t23 spelled out: names only
		{fn("t22", "t20"), ""},                   // differs deep inside
	} {
		new := write("new.json", tt.param)
		var r abidiff.Report
		if alloc := elfgen.Allocated(func() { r = compare(t, old, new, nil) }); alloc > 256<<20 {
			t.Errorf("allocated %d MB", alloc>>20)
		}
		if len(r.Symbols.Changes) != 1 || r.Symbols.Changes[0].Note != tt.note || r.Symbols.Changes[0].Compatible != (tt.note != "") {
			t.Errorf("changes = %+v, want one with note %q", r.Symbols.Changes, tt.note)
		}
	}
	if n := len(abiJSON(`{"ref": "t23"}`)); n > 8<<10 {
		t.Errorf("input is %d bytes", n)
	}
}

// TestImpact: each changed type names the public symbols that reach it and
// the way from each; a change no public symbol reaches is reported apart.
func TestImpact(t *testing.T) {
	old := load(t, buildLib(t, "gcc", "v1"))
	new := load(t, buildLib(t, "gcc", "v2"))
	r := compare(t, old, new, nil)
	want := map[string][]string{
		"struct point": {"use_all@@LIBT_1.0", "parameter 1", "struct point"},
		"PARAMS":       {"use_all@@LIBT_1.0", "parameter 10", "PARAMS"},
		"enum color":   {"use_all@@LIBT_1.0", "parameter 4", "enum color"},
	}
	for _, tc := range r.Types {
		w, ok := want[tc.Name]
		if !ok {
			continue
		}
		delete(want, tc.Name)
		if tc.Impact == nil || tc.Impact.Symbols != 1 || len(tc.Impact.Paths) != 1 || !slices.Equal(tc.Impact.Paths[0], w) {
			t.Errorf("%s: impact %+v, want one path %q", tc.Name, tc.Impact, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("not reported: %v", want)
	}
}

// TestImpactPaths: paths go through members and typedefs, nearest first,
// at most MaxPaths of them, and the count covers every symbol.
func TestImpactPaths(t *testing.T) {
	intT := &abi.Type{Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"}
	inner := func(size int64) *abi.Type {
		return &abi.Type{Kind: abi.Struct, Name: "inner", Size: size, Members: []abi.Member{{Name: "x", Type: &abi.Type{Ref: "int"}}}}
	}
	ptr := func(k string) *abi.Type { return &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: k}} }
	mk := func(size int64) *abi.ABI {
		a := &abi.ABI{DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{
			"int":          intT,
			"struct inner": inner(size),
			"struct outer": {Kind: abi.Struct, Name: "outer", Size: 8, Members: []abi.Member{{Name: "in", Type: ptr("struct inner")}}},
			"outer_t":      {Kind: abi.Typedef, Name: "outer_t", Elem: &abi.Type{Ref: "struct outer"}},
		}}
		for i := range 7 {
			a.Symbols = append(a.Symbols, abi.Symbol{Name: fmt.Sprintf("f%d", i), Version: "V_1", Default: true, Kind: abi.SymFunc, Binding: abi.BindGlobal,
				Type: &abi.Type{Kind: abi.Func, Elem: &abi.Type{Ref: "int"}, Params: []*abi.Type{&abi.Type{Ref: "int"}, ptr("outer_t")}}})
		}
		a.Symbols = append(a.Symbols, abi.Symbol{Name: "direct", Version: "V_1", Default: true, Kind: abi.SymObject, Binding: abi.BindGlobal, Size: 4, Type: &abi.Type{Ref: "struct inner"}},
			abi.Symbol{Name: "hidden", Version: "V_PRIVATE", Default: true, Kind: abi.SymFunc, Binding: abi.BindGlobal, Type: &abi.Type{Kind: abi.Func, Elem: ptr("struct inner")}})
		return a
	}
	r := compare(t, mk(4), mk(8), nil)
	if len(r.Types) != 1 || r.Types[0].Impact == nil {
		t.Fatalf("types %+v", r.Types)
	}
	im := r.Types[0].Impact
	if im.Symbols != 8 || len(im.Paths) != abidiff.MaxPaths {
		t.Fatalf("impact %d symbols, %d paths; want 8 (the private one left out), %d", im.Symbols, len(im.Paths), abidiff.MaxPaths)
	}
	if want := []string{"direct@@V_1", "struct inner"}; !slices.Equal(im.Paths[0], want) {
		t.Errorf("nearest path %q, want %q", im.Paths[0], want)
	}
	if want := []string{"f0@@V_1", "parameter 2", "outer_t", "struct outer", "member in", "struct inner"}; !slices.Equal(im.Paths[1], want) {
		t.Errorf("second path %q, want %q", im.Paths[1], want)
	}
	var b strings.Builder
	r.WriteText(&b, report.Painter{})
	for _, want := range []string{"reached from 8 symbols:", "      f0@@V_1 → parameter 2 → outer_t → struct outer → member in → struct inner\n", "      and 3 more\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// Reached by the private symbol alone: reported apart.
	a, n := mk(4), mk(8)
	for _, x := range []*abi.ABI{a, n} {
		x.Symbols = x.Symbols[len(x.Symbols)-1:]
	}
	r = compare(t, a, n, nil)
	if len(r.Types) != 0 || len(r.PrivateTypes) != 1 || !r.Compatible {
		t.Errorf("private only: types %d, private %d, compatible %v", len(r.Types), len(r.PrivateTypes), r.Compatible)
	}
}

// TestUnreachedType: a changed type no symbol reaches at all is reported
// apart, like one only private symbols reach, and breaks nothing.
func TestUnreachedType(t *testing.T) {
	mk := func(size int64) *abi.ABI {
		return &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF,
			Symbols: []abi.Symbol{{Name: "f", Version: "V_1", Default: true, Kind: abi.SymFunc, Binding: abi.BindGlobal,
				Type: &abi.Type{Kind: abi.Func, Elem: &abi.Type{Kind: abi.Void}}}},
			Types: map[string]*abi.Type{"struct internal": {Kind: abi.Struct, Name: "internal", Size: size}}}
	}
	r := compare(t, mk(8), mk(16), nil)
	if len(r.Types) != 0 || len(r.PrivateTypes) != 1 || !r.Compatible || r.PrivateTypes[0].Impact != nil {
		t.Errorf("types %v, apart %v, compatible %v", r.Types, r.PrivateTypes, r.Compatible)
	}
	var b strings.Builder
	r.WriteText(&b, report.Painter{})
	if !strings.Contains(b.String(), "changed types no public symbol reaches") {
		t.Errorf("text:\n%s", b.String())
	}
}

// A version node added with no symbol in it is listed but is no change
// (abidiff exits 0: json-c 0.15 -> 0.16 adds an empty JSONC_0.16); one
// that brings a symbol is, and removing either breaks the programs that
// need it.
func TestEmptyVersionNode(t *testing.T) {
	f := abi.Symbol{Name: "f", Version: "V_1", Default: true, Kind: "func", Binding: "global"}
	g := abi.Symbol{Name: "g", Version: "V_2", Default: true, Kind: "func", Binding: "global"}
	mk := func(versions []string, syms ...abi.Symbol) *abi.ABI {
		return &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugNone, Versions: versions, Symbols: syms}
	}
	old := mk([]string{"V_1"}, f)
	for _, tc := range []struct {
		name     string
		old, new *abi.ABI
		exit     int
		change   string
	}{
		{"empty node added", old, mk([]string{"V_1", "V_2"}, f), 0, "version V_2 added (no symbol in it)"},
		{"node added with a symbol", old, mk([]string{"V_1", "V_2"}, f, g), abidiff.ExitChange, "version V_2 added"},
		{"empty node removed", mk([]string{"V_1", "V_2"}, f), old, abidiff.ExitChange, "version V_2 removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := compare(t, tc.old, tc.new, nil)
			if got := r.Exit(false); got != tc.exit {
				t.Errorf("exit %d, want %d", got, tc.exit)
			}
			var texts []string
			for _, c := range r.Symbols.Changes {
				texts = append(texts, c.String())
			}
			if !slices.Contains(texts, tc.change) {
				t.Errorf("changes %q, want %q among them", texts, tc.change)
			}
			if !slices.Contains(r.Notes, "no debug info on either side: types not compared") {
				t.Errorf("notes %q", r.Notes)
			}
		})
	}
}

// compare is abidiff.Compare under a context that never ends, with the
// readers' demangler, as package diff and ranges run it.
func compare(t testing.TB, old, new *abi.ABI, sup *abidiff.Suppressions) abidiff.Report {
	t.Helper()
	r, err := abidiff.Compare(context.Background(), old, new, sup, abiread.Demangler{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
