package abidiff_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
)

// suppressABIs is a pair with one change of each kind a libabigail
// suppression property selects.
func suppressABIs() (old, new *abi.ABI) {
	intT := &abi.Type{Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"}
	longT := &abi.Type{Kind: abi.Base, Name: "long int", Size: 8, Encoding: "signed"}
	ref := func(k string) *abi.Type { return &abi.Type{Ref: k} }
	fn := func(ret string, params ...*abi.Type) *abi.Type {
		return &abi.Type{Kind: abi.Func, Elem: ref(ret), Params: params}
	}
	ptr := func(k string) *abi.Type { return &abi.Type{Kind: abi.Pointer, Size: 8, Elem: ref(k)} }
	sym := func(name, ver string, kind abi.SymbolKind, size uint64, t *abi.Type) abi.Symbol {
		return abi.Symbol{Name: name, Version: ver, Default: true, Kind: kind, Binding: abi.BindGlobal, Size: size, Type: t}
	}
	mk := func(v2 bool) *abi.ABI {
		a := &abi.ABI{Schema: abi.Schema, SOName: "libsup.so.1", DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{
			"int": intT, "long int": longT,
			// appended: a member added at the end.
			"struct appended": {Kind: abi.Struct, Name: "appended", Size: 8, Members: []abi.Member{{Name: "a", Type: ref("int")}, {Name: "b", Offset: 4, Type: ref("int")}}},
			// inserted: a member inserted after a, b moves.
			"struct inserted": {Kind: abi.Struct, Name: "inserted", Size: 8, Members: []abi.Member{{Name: "a", Type: ref("int")}, {Name: "b", Offset: 4, Type: ref("int")}}},
			"enum color":      {Kind: abi.Enum, Name: "color", Size: 4, Enumerators: []abi.Enumerator{{Name: "RED"}, {Name: "BLUE", Value: 1}}},
		}}
		a.Symbols = []abi.Symbol{
			sym("use", "V_1", abi.SymFunc, 0, &abi.Type{Kind: abi.Func, Elem: ref("int"), Params: []*abi.Type{ptr("struct appended"), ptr("struct inserted"), ref("enum color")}}),
			sym("ret", "V_1", abi.SymFunc, 0, fn("int")),
			sym("counter", "V_1", abi.SymObject, 4, ref("int")),
		}
		if !v2 {
			a.Symbols = append(a.Symbols, sym("gone_fn", "V_1", abi.SymFunc, 0, fn("int")), sym("gone_var", "V_1", abi.SymObject, 4, ref("int")))
			return a
		}
		a.Types["struct appended"] = &abi.Type{Kind: abi.Struct, Name: "appended", Size: 12, Members: []abi.Member{{Name: "a", Type: ref("int")}, {Name: "b", Offset: 4, Type: ref("int")}, {Name: "c", Offset: 8, Type: ref("int")}}}
		a.Types["struct inserted"] = &abi.Type{Kind: abi.Struct, Name: "inserted", Size: 12, Members: []abi.Member{{Name: "a", Type: ref("int")}, {Name: "x", Offset: 4, Type: ref("int")}, {Name: "b", Offset: 8, Type: ref("int")}}}
		a.Types["enum color"] = &abi.Type{Kind: abi.Enum, Name: "color", Size: 4, Enumerators: []abi.Enumerator{{Name: "RED"}, {Name: "BLUE", Value: 2}}}
		a.Symbols[1].Type = fn("long int")
		a.Symbols[2].Size = 8
		a.Symbols = append(a.Symbols, sym("new_fn", "V_2", abi.SymFunc, 0, fn("int")), sym("new_var", "V_2", abi.SymObject, 4, ref("int")))
		a.Versions = []string{"V_2"}
		return a
	}
	return mk(false), mk(true)
}

// everything a report of suppressABIs lists, as "-sym", "+sym", "~sym" and
// "type NAME".
func reported(r abidiff.Report) []string {
	var out []string
	for _, c := range r.Symbols.Changes {
		switch c.Kind {
		case abidiff.SymbolRemoved:
			out = append(out, "-"+c.Symbol)
		case abidiff.SymbolAdded:
			out = append(out, "+"+c.Symbol)
		case abidiff.SymbolSize, abidiff.SymbolType:
			out = append(out, "~"+c.Symbol)
		}
	}
	for _, tc := range r.Types {
		out = append(out, "type "+tc.Name)
	}
	slices.Sort(out)
	return out
}

// TestLibabigailSuppressions: each supported property of libabigail's
// format hides what it names and nothing else.
func TestLibabigailSuppressions(t *testing.T) {
	old, new := suppressABIs()
	all := reported(compare(t, old, new, nil))
	wantAll := []string{"+new_fn@@V_2", "+new_var@@V_2", "-gone_fn@@V_1", "-gone_var@@V_1", "type enum color", "type struct appended", "type struct inserted",
		"~counter@@V_1", "~ret@@V_1"}
	if !slices.Equal(all, wantAll) {
		t.Fatalf("unsuppressed report %q\nwant %q", all, wantAll)
	}
	tests := []struct {
		name, spec string
		hidden     []string
	}{
		{"function name", "[suppress_function]\nname = gone_fn", []string{"-gone_fn@@V_1"}},
		{"function name_regexp", "[suppress_function]\n  name_regexp = ^(gone|new)_", []string{"-gone_fn@@V_1", "+new_fn@@V_2"}},
		// The types are reached only through use: a rule that suppresses use
		// hides them too, as libabigail reports a type change only under a
		// function or variable that reaches it.
		{"function name_not_regexp", "[suppress_function]\nname_not_regexp = ^gone_", []string{"+new_fn@@V_2", "~ret@@V_1", "type enum color", "type struct appended", "type struct inserted"}},
		{"function symbol_name", "[suppress_function]\nsymbol_name = ret", []string{"~ret@@V_1"}},
		{"function symbol_name_regexp", "[suppress_function]\nsymbol_name_regexp = _fn$", []string{"-gone_fn@@V_1", "+new_fn@@V_2"}},
		{"function symbol_name_not_regexp", "[suppress_function]\nsymbol_name_not_regexp = _fn$", []string{"~ret@@V_1", "type enum color", "type struct appended", "type struct inserted"}},
		{"function symbol_version", "[suppress_function]\nsymbol_version = V_2", []string{"+new_fn@@V_2"}},
		{"function symbol_version_regexp", "[suppress_function]\nsymbol_version_regexp = ^V_", []string{"-gone_fn@@V_1", "+new_fn@@V_2", "~ret@@V_1", "type enum color", "type struct appended", "type struct inserted"}},
		{"function change_kind deleted", "[suppress_function]\nchange_kind = deleted-function\nname_regexp = .", []string{"-gone_fn@@V_1"}},
		{"function change_kind added", "[suppress_function]\nlabel = any\nchange_kind = added-function", []string{"+new_fn@@V_2"}},
		{"function change_kind subtype", "[suppress_function]\nlabel = any\nchange_kind = function-subtype-change", []string{"~ret@@V_1", "type enum color", "type struct appended", "type struct inserted"}},
		{"function name reaches types", "[suppress_function]\nname = use", []string{"type enum color", "type struct appended", "type struct inserted"}},
		{"function parameter", "[suppress_function]\nparameter = '0 appended*", []string{"type enum color", "type struct appended", "type struct inserted"}},
		{"function parameter regexp", "[suppress_function]\nparameter = '2 /^enum col/", []string{"type enum color", "type struct appended", "type struct inserted"}},
		{"function parameter other", "[suppress_function]\nparameter = '0 int", nil},
		{"function change_kind list", "[suppress_function]\nlabel = any\nchange_kind = added-function, deleted-function", []string{"-gone_fn@@V_1", "+new_fn@@V_2"}},
		{"function return_type_name", "[suppress_function]\nreturn_type_name = long int", []string{"~ret@@V_1"}},
		{"function return_type_regexp", "[suppress_function]\nreturn_type_regexp = ^long", []string{"~ret@@V_1"}},
		{"variable name", "[suppress_variable]\nname = counter", []string{"~counter@@V_1"}},
		{"variable symbol_name_regexp", "[suppress_variable]\nsymbol_name_regexp = _var$", []string{"-gone_var@@V_1", "+new_var@@V_2"}},
		{"variable change_kind", "[suppress_variable]\nlabel = any\nchange_kind = added-variable", []string{"+new_var@@V_2"}},
		{"variable type_name", "[suppress_variable]\ntype_name = int\nchange_kind = deleted-variable", []string{"-gone_var@@V_1"}},
		{"variable type_name_regexp", "[suppress_variable]\ntype_name_regexp = ^int$", []string{"-gone_var@@V_1", "+new_var@@V_2", "~counter@@V_1"}},
		{"soname_regexp", "[suppress_function]\nsoname_regexp = ^libsup\\.so\nname = gone_fn", []string{"-gone_fn@@V_1"}},
		{"soname_regexp no match", "[suppress_function]\nsoname_regexp = ^libother\nname = gone_fn", nil},
		{"soname_not_regexp", "[suppress_function]\nsoname_not_regexp = ^libother\nname = gone_fn", []string{"-gone_fn@@V_1"}},
		{"file_name_regexp", "[suppress_function]\nfile_name_regexp = old\\.so$\nname = gone_fn", []string{"-gone_fn@@V_1"}},
		{"file_name_not_regexp", "[suppress_function]\nfile_name_not_regexp = \\.so$\nname = gone_fn", nil},
		{"type name", "[suppress_type]\nname = appended", []string{"type struct appended"}},
		{"type name as key", "[suppress_type]\nname = struct appended", []string{"type struct appended"}},
		{"type name_regexp", "[suppress_type]\nname_regexp = ^(appended|inserted)$", []string{"type struct appended", "type struct inserted"}},
		{"type name_not_regexp", "[suppress_type]\nname_not_regexp = appended", []string{"type enum color", "type struct inserted"}},
		{"type_kind", "[suppress_type]\ntype_kind = enum", []string{"type enum color"}},
		{"type_kind struct", "[suppress_type]\ntype_kind = struct", []string{"type struct appended", "type struct inserted"}},
		{"inserted_at end", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_at = end\nhas_size_change = yes", []string{"type struct appended"}},
		{"inserted_at bits", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_at = 32\nhas_size_change = yes", []string{"type struct appended", "type struct inserted"}},
		{"inserted_at too far", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_at = 96\nhas_size_change = yes", nil},
		{"inserted_between offset_after", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_between = {offset_after(a), offset_of(b)}\nhas_size_change = yes", []string{"type struct inserted"}},
		{"inserted_between end", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_between = {offset_after(b), end}\nhas_size_change = yes", []string{"type struct appended"}},
		{"members_inserted_between", "[suppress_type]\ntype_kind = struct\nhas_data_members_inserted_between = {{32, 32}, {64, end}}\nhas_size_change = yes", []string{"type struct appended", "type struct inserted"}},
		{"inserted_at end, size changed", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_at = end", nil},
		{"accessed_through pointer", "[suppress_type]\nname_regexp = .\naccessed_through = pointer", []string{"type struct appended", "type struct inserted"}},
		{"accessed_through reference-or-pointer", "[suppress_type]\nname = appended\naccessed_through = reference-or-pointer", []string{"type struct appended"}},
		{"accessed_through reference", "[suppress_type]\nname_regexp = .\naccessed_through = reference", nil},
		{"accessed_through direct", "[suppress_type]\nname_regexp = .\naccessed_through = direct", []string{"type enum color"}},
		{"has_data_member", "[suppress_type]\ntype_kind = struct\nhas_data_member = {a, b}", []string{"type struct appended", "type struct inserted"}},
		{"has_data_member one", "[suppress_type]\nname = inserted\nhas_data_member = b", []string{"type struct inserted"}},
		{"has_data_member missing", "[suppress_type]\ntype_kind = struct\nhas_data_member = x", nil},
		{"has_data_member_regexp", "[suppress_type]\ntype_kind = struct\nhas_data_member_regexp = ^[ab]$", []string{"type struct appended", "type struct inserted"}},
		{"changed_enumerators", "[suppress_type]\ntype_kind = enum\nchanged_enumerators = BLUE, GREEN", []string{"type enum color"}},
		{"changed_enumerators other", "[suppress_type]\nchanged_enumerators = GREEN", nil},
		{"changed_enumerators_regexp", "[suppress_type]\ntype_kind = enum\nchanged_enumerators_regexp = ^BL", []string{"type enum color"}},
		{"label, drop and comments", "# a comment\n; another\n[suppress_function]\nlabel = \"old API\"\ndrop = yes\nname = \"gone_fn\"", []string{"-gone_fn@@V_1"}},
		{"allow_other_aliases", "[suppress_function]\nallow_other_aliases = yes\nname = gone_fn", []string{"-gone_fn@@V_1"}},
		// libabigail ignores a section with no property that selects.
		{"change_kind alone", "[suppress_function]\nchange_kind = all", nil},
		{"inserted_at alone", "[suppress_type]\nhas_data_member_inserted_at = end\nhas_size_change = yes", nil},
		{"range over lines", "[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_between =\n  {\n  offset_after(b),\n  end\n  }\nhas_size_change = yes", []string{"type struct appended"}},
		{"two sections", "[suppress_function]\nname = gone_fn\n\n[suppress_variable]\nname = gone_var", []string{"-gone_fn@@V_1", "-gone_var@@V_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sup, err := abidiff.ParseSuppressions("test.abignore", strings.NewReader(tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			r := compare(t, old, new, sup.WithFiles("/tmp/old.so", "/tmp/new.so"))
			var want []string
			for _, s := range all {
				if !slices.Contains(tt.hidden, s) {
					want = append(want, s)
				}
			}
			if got := reported(r); !slices.Equal(got, want) {
				t.Errorf("reported %q\nwant %q", got, want)
			}
			if got := r.Filtered.Total(); got != len(tt.hidden) {
				t.Errorf("filtered %+v, want %d in all", r.Filtered, len(tt.hidden))
			}
		})
	}
}

// TestSuppressionErrors: what is not supported is named, with its line.
func TestSuppressionErrors(t *testing.T) {
	for _, tt := range []struct{ spec, want string }{
		{"[suppress_nothing]\nfile_name_regexp = x", `test.abignore:1: section [suppress_nothing] is not supported`},
		{"[suppress_file]\nname = x", `test.abignore:2: [suppress_file]: property "name" is not supported`},
		{"[suppress_type]\ntype_kind = pointer", `unknown type kind "pointer"`},
		{"[suppress_function]\nchange_kind = added-variable", `unknown change kind "added-variable"`},
		{"[suppress_function]\nname_regexp = (", `name_regexp: error parsing regexp`},
		{"[suppress_type]\nhas_data_member_inserted_between = {1}", `want {BEGIN, END}`},
		{"[suppress_type]\nhas_data_member_inserted_at = offset_of()", `want offset_of(MEMBER)`},
		{"[suppress_type]\nhas_data_member_inserted_at = -3", `want a bit offset`},
		{"[suppress_type]\nname = a\nname = b", `property "name" given twice`},
		{"[suppress_type\nname = a", `lacks its ]`},
		{"[suppress_type]\nname", `want "property = value"`},
		{"[suppress_function]\nallow_other_aliases = no", `only yes is supported`},
		{"symbol", `want "symbol REGEX"`},
	} {
		_, err := abidiff.ParseSuppressions("test.abignore", strings.NewReader(tt.spec))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.spec, err, tt.want)
		}
	}
}

// TestJoinSuppressions: rules of several files add up.
func TestJoinSuppressions(t *testing.T) {
	old, new := suppressABIs()
	a, err := abidiff.ParseSuppressions("a", strings.NewReader("symbol ^gone_fn$"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := abidiff.ParseSuppressions("b", strings.NewReader("[suppress_type]\nname = color"))
	if err != nil {
		t.Fatal(err)
	}
	r := compare(t, old, new, abidiff.JoinSuppressions(nil, a, b))
	if r.Filtered != (abidiff.Filtered{Symbols: 1, Types: 1}) {
		t.Errorf("filtered %+v", r.Filtered)
	}
	if abidiff.JoinSuppressions(nil, nil) != nil {
		t.Error("no files give suppressions")
	}
}

// FuzzParseSuppressions: any input is parsed or refused with an error,
// never a panic, and what parses can be applied.
func FuzzParseSuppressions(f *testing.F) {
	for _, s := range []string{
		"symbol ^gone$\ntype ^struct s$\n",
		"[suppress_function]\nname_regexp = ^foo\nchange_kind = added-function, deleted-function\n",
		"[suppress_variable]\nsymbol_name = v\ntype_name_regexp = int\nsoname_regexp = libc\n",
		"[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_at = end\n",
		"[suppress_type]\nhas_data_members_inserted_between = {{offset_after(a), offset_of(b)}, {64, end}}\n",
		"[suppress_type]\nchanged_enumerators = A, B\nfile_name_not_regexp = \"x\"\n",
		"; c\n# c\n[suppress_function]\nlabel = l\ndrop = yes\n",
		"[suppress_type]\nname = S\naccessed_through = reference-or-pointer\n",
		"[allow_type]\ntype_kind = struct\nhas_data_member_regexp = ^r\n\n[suppress_type]\ntype_kind = struct\nhas_data_member_inserted_between =\n {\n offset_of_first_data_member_regexp(r),\n offset_of_last_data_member_regexp(r)\n }\n",
		"[suppress_type]\ntype_kind = struct\nhas_data_member = {a, b}\nhas_size_change = true;\n",
		"[suppress_function]\nparameter = '0 /^int/\nparameter = '1 S*\n",
		"Functions changes summary: 0 Removed\n  [D] _Z3foov\n",
		"[suppress_type]\nname =\n\n; c\n x\n[allow_type]\nname_regexp = (?:ab)+c{2}\nhas_data_members_inserted_between =\n{\n{0,\n end}\n}\n",
		"symbol ^gone_[a-z]+$\nsymbol (?i)GONE\ntype .\n",
	} {
		f.Add(s)
	}
	old, new := suppressABIs()
	f.Fuzz(func(t *testing.T, spec string) {
		sup, err := abidiff.ParseSuppressions("fuzz", strings.NewReader(spec))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		compare(t, old, new, sup.WithFiles("old.so", "new.so"))
	})
}
