package abidiff

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
)

// Issue 28 item 11: a suppression file is untrusted, and each of these
// attacks cost tens of seconds. The tests assert the bound that replaced
// each cost, not a time.

// removedABIs is a pair where every name of names was removed.
func removedABIs(names []string) (old, new *abi.ABI) {
	mk := func(names []string) *abi.ABI {
		a := &abi.ABI{Schema: abi.Schema, SOName: "libx.so.1", DebugInfo: abi.DebugNone, Types: map[string]*abi.Type{}}
		for _, n := range names {
			a.Symbols = append(a.Symbols, abi.Symbol{Name: n, Kind: abi.SymFunc, Binding: abi.BindGlobal})
		}
		return a
	}
	return mk(append([]string{"kept"}, names...)), mk([]string{"kept"})
}

// TestSuppressionJoinLinear: a value continued over every line a file
// may hold (1 MB of "{" then one-character lines) is joined in memory
// proportional to the file; joining it line by line allocated gigabytes.
func TestSuppressionJoinLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("[suppress_type]\nname = x\nhas_data_members_inserted_between = {\n")
	for b.Len() < 1<<20 {
		b.WriteString("x\n")
	}
	b.WriteString("}\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseSuppressions("join.supp", strings.NewReader(b.String()))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasPrefix(err.Error(), "join.supp:3:") {
		t.Fatalf("want an error at join.supp:3, got %v", err)
	}
	// The error quotes the value shortened, with its length.
	if len(err.Error()) > 400 || !strings.Contains(err.Error(), "bytes)") {
		t.Errorf("error not shortened: %d bytes", len(err.Error()))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("joining 1 MB allocated %d MB", n>>20)
	}
}

// TestSuppressionRegexpBounds: a pattern over maxRegexpBytes, or one that
// compiles past maxRegexpInsts, is an error naming the file and line.
func TestSuppressionRegexpBounds(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"long", "[suppress_function]\nname_regexp = " + strings.Repeat("(a|b)?", 4000) + "c\n", "big.supp:2: [suppress_function] name_regexp: regexp of 24001 bytes: at most 16384 are read"},
		{"simple", "symbol " + strings.Repeat("a?", 12000), "big.supp:1: regexp of 24000 bytes"},
		{"program", "[suppress_type]\nname_regexp = " + strings.Repeat("(?:[a-z]{1000})", 100) + "\n", "big.supp:2: [suppress_type] name_regexp: regexp compiles to"},
		{"param", "[suppress_function]\nparameter = '0 /" + strings.Repeat("x", 20000) + "/\n", "big.supp:2: [suppress_function] parameter: regexp of 20000 bytes"},
		{"file", strings.Repeat("[suppress_type]\nname_regexp = [a-z]{1000}\n", 1100), "file's regexps compile to more than"},
	} {
		_, err := ParseSuppressions("big.supp", strings.NewReader(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want %q, got %v", tc.name, tc.want, err)
		}
	}
}

// TestSuppressionLongName: a regexp under the size bound is not matched
// against a name so long that the match could cost past maxMatchCost; the
// rule hides nothing there (the change is reported) and a note says so.
// A short name still matches.
func TestSuppressionLongName(t *testing.T) {
	long := strings.Repeat("a", 24000)
	old, new := removedABIs([]string{long, "ab"})
	spec := "[suppress_function]\nname_regexp = ^" + strings.Repeat("a?", 6000) + "b?$\n"
	sup, err := ParseSuppressions("long.supp", strings.NewReader(spec))
	if err != nil {
		t.Fatal(err)
	}
	r := compare(t, old, new, sup)
	if len(r.Symbols.Changes) != 1 || r.Symbols.Changes[0].Symbol != long || r.Filtered.Symbols != 1 {
		t.Errorf("want the long name reported and ab hidden, got %d changes, %d filtered", len(r.Symbols.Changes), r.Filtered.Symbols)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "long.supp:2: a regexp not matched against a name of 24000 bytes") {
		t.Errorf("no note of the match not made: %q", r.Notes)
	}
}

// TestSuppressionManyRules: 30,000 rules against 5,000 removed symbols
// try each symbol against the rules its names could match, not all of
// them: the rules tried stay near the symbols' count, and the result is
// the rules' (every rule that names a symbol hides it).
func TestSuppressionManyRules(t *testing.T) {
	var names []string
	for i := range 5000 {
		names = append(names, fmt.Sprintf("sym_%05d", i))
	}
	for _, format := range []string{
		"[suppress_function]\nname_regexp = ^sym_%05d$\n",
		"[suppress_function]\nname = sym_%05d\n",
		"symbol ^sym_%05d@?\n",
	} {
		var b strings.Builder
		for i := range 30000 {
			// Even rules name a symbol (half of them), odd ones
			// none.
			fmt.Fprintf(&b, format, i/2+(i%2)*100000)
		}
		sup, err := ParseSuppressions("many.supp", strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		old, new := removedABIs(names)
		cmp := newComparer(context.Background(), old, new)
		var r Report
		incompatible := false
		compareSymbols(&r, cmp, sup, &incompatible)
		if r.Filtered.Symbols != 5000 || len(r.Symbols.Changes) != 0 {
			t.Errorf("%q: %d filtered, %d reported, want 5000 and 0", format, r.Filtered.Symbols, len(r.Symbols.Changes))
		}
		if tried := cmp.match.tried; tried > 2*5000 {
			t.Errorf("%q: %d rules tried for 5000 symbols", format, tried)
		}
	}
}

// TestSuppressionWorkBound: rules every symbol is a candidate for (no
// literal to index, a property that fails last) spend the comparison's
// matching bound and stop: what is left is reported, never hidden, and a
// note says matching stopped. An [allow_type] rule the bound stops counts
// as allowing (the change is reported).
func TestSuppressionWorkBound(t *testing.T) {
	var names []string
	for i := range 5000 {
		names = append(names, fmt.Sprintf("sym_%05d", i))
	}
	var b strings.Builder
	for range 30000 {
		b.WriteString("[suppress_function]\nname_regexp = [a-z]+[_0-9]*\nsymbol_version = NONE\n")
	}
	b.WriteString("[suppress_function]\nname_regexp = .\n")
	sup, err := ParseSuppressions("costly.supp", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	old, new := removedABIs(names)
	r := compare(t, old, new, sup)
	if !strings.Contains(strings.Join(r.Notes, "\n"), "suppressions: matching stopped after") {
		t.Errorf("no note of the bound: %q", r.Notes)
	}
	if len(r.Symbols.Changes) == 0 || r.Filtered.Symbols+len(r.Symbols.Changes) != 5000 {
		t.Errorf("%d reported, %d filtered", len(r.Symbols.Changes), r.Filtered.Symbols)
	}

	m := &meter{spent: true}
	if !m.tryOr(true, func() bool { return false }) || m.try(func() bool { return true }) {
		t.Error("a spent meter must allow an [allow_type] and hide nothing")
	}
}

// TestRequiredLiteral: the literal a rule is indexed by is text every
// match holds.
func TestRequiredLiteral(t *testing.T) {
	for re, want := range map[string]string{
		"^sym_00001$":      "sym_00001",
		"foo.*barbaz":      "barbaz",
		"(?:abc)+x":        "abc",
		"a|bcd":            "",
		"(?i)abc":          "",
		"x?":               "",
		"(ab){2}c":         "ab",
		"[a-z]00001":       "00001",
		"_ZN3foo\\d+bar":   "_ZN3foo",
		"\\x{fffd}abcdefg": "",
	} {
		c := &compiler{}
		x, err := c.compile("t", re)
		if err != nil {
			t.Fatal(err)
		}
		if got := literalOf(x); got != want {
			t.Errorf("literalOf(%q) = %q, want %q", re, got, want)
		}
	}
}

// TestDeepChainsLinear: comparing pointer chains as deep as ABI JSON may
// nest (issue 28 item 12: 52 chains 510 deep took diff 52 s and 1 GB, for
// each level's comparison expanded everything below it again) allocates
// in proportion to the chains, not to their square.
func TestDeepChainsLinear(t *testing.T) {
	mk := func(leaf string) *abi.ABI {
		a := &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{
			"int":  {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
			"long": {Kind: abi.Base, Name: "long", Size: 8, Encoding: "signed"},
		}}
		for i := range 52 {
			tp := &abi.Type{Ref: leaf}
			for range 510 {
				tp = &abi.Type{Kind: abi.Pointer, Size: 8, Elem: tp}
			}
			a.Symbols = append(a.Symbols, abi.Symbol{Name: fmt.Sprintf("f%d", i), Kind: abi.SymObject, Binding: abi.BindGlobal, Size: 8, Type: tp})
		}
		return a
	}
	old, new := mk("int"), mk("long")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := compare(t, old, new, nil)
	runtime.ReadMemStats(&after)
	if len(r.Symbols.Changes) != 52 {
		t.Errorf("%d changes, want 52", len(r.Symbols.Changes))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 128<<20 {
		t.Errorf("comparing 52 chains 510 deep allocated %d MB", n>>20)
	}
}
