package ranges

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/ranges/table"
)

// vs makes versions from "name=fingerprint" pairs.
func vs(pairs ...string) []Version {
	var out []Version
	for _, p := range pairs {
		n, fp, _ := strings.Cut(p, "=")
		out = append(out, Version{Name: n, Fingerprint: fp})
	}
	return out
}

func sameAs(i int) *int { return &i }

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		in   []Version
		want []table.Range
	}{
		{"empty", nil, []table.Range{}},
		{"one", vs("1.0=a"), []table.Range{{First: "1.0", Last: "1.0", Versions: []string{"1.0"}, Fingerprint: "a"}}},
		{"stretch and change, unordered input", vs("535.113.01=a", "535.104.05=a", "550.54.14=b", "535.288.01=a"), []table.Range{
			{First: "535.104.05", Last: "535.288.01", Versions: []string{"535.104.05", "535.113.01", "535.288.01"}, Fingerprint: "a"},
			{First: "550.54.14", Last: "550.54.14", Versions: []string{"550.54.14"}, Fingerprint: "b"},
		}},
		{"revert", vs("1=a", "2=a", "3=b", "4=a", "5=c", "6=b"), []table.Range{
			{First: "1", Last: "2", Versions: []string{"1", "2"}, Fingerprint: "a"},
			{First: "3", Last: "3", Versions: []string{"3"}, Fingerprint: "b"},
			{First: "4", Last: "4", Versions: []string{"4"}, Fingerprint: "a", SameAs: sameAs(0)},
			{First: "5", Last: "5", Versions: []string{"5"}, Fingerprint: "c"},
			{First: "6", Last: "6", Versions: []string{"6"}, Fingerprint: "b", SameAs: sameAs(1)},
		}},
		{"pre-release and v prefix", vs("v1.0.0=a", "v1.0.0-rc1=a", "v1.0.1=b", "v1.0.10=a", "v1.0.2=a"), []table.Range{
			{First: "v1.0.0-rc1", Last: "v1.0.0", Versions: []string{"v1.0.0-rc1", "v1.0.0"}, Fingerprint: "a"},
			{First: "v1.0.1", Last: "v1.0.1", Versions: []string{"v1.0.1"}, Fingerprint: "b"},
			{First: "v1.0.2", Last: "v1.0.10", Versions: []string{"v1.0.2", "v1.0.10"}, Fingerprint: "a", SameAs: sameAs(0)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := New([]string{"T"}, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				tt.want[i].Changes = []table.Change{}
			}
			got, _ := json.Marshal(tab.Ranges)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		in   []Version
		want string
	}{
		{vs("1.0=a", "1.0=b"), "1.0: given twice"},
		{vs("535.104.5=a", "535.104.05=a"), "the same version written twice"},
		{vs("x.y=a"), `"x.y": does not start with a number`},
		{vs("1..2=a"), "empty component"},
		{[]Version{{Name: "1.0"}}, "no ABI and no fingerprint"},
	}
	for _, tt := range tests {
		_, err := New(nil, tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	tab, err := New(nil, vs("535.104.05=a", "535.113.01=a", "535.288.01=a", "550.54.14=b", "550.90.07=b", "555.42.02=a"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		v                  string
		covered, observed  bool
		rng, before, after int
		text               string
	}{
		{"535.104.05", true, true, 0, -1, -1, "covered by range 0 (535.104.05 … 535.288.01), observed"},
		{"535.104.5", true, true, 0, -1, -1, "observed"},
		{"535.183.01", true, false, 0, -1, -1, "inferred"},
		{"535.288.01", true, true, 0, -1, -1, "observed"},
		{"545.23.06", false, false, -1, 0, 1, "gap between range 0 (535.104.05 … 535.288.01), last 535.288.01, and range 1 (550.54.14 … 550.90.07), first 550.54.14"},
		{"550.60", true, false, 1, -1, -1, "inferred"},
		{"550.90.08", false, false, -1, 1, 2, "gap"},
		{"555.42.02", true, true, 2, -1, -1, "range 2 (555.42.02)"},
		{"525.1", false, false, -1, -1, 0, "before the first range, range 0 (535.104.05 … 535.288.01), first 535.104.05"},
		{"560", false, false, -1, 2, -1, "after the last range, range 2 (555.42.02), last 555.42.02"},
	}
	for _, tt := range tests {
		a, err := tab.Lookup(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if a.Covered != tt.covered || a.Observed != tt.observed || index(a) != tt.rng || before(a) != tt.before || after(a) != tt.after {
			t.Errorf("%s: got %+v", tt.v, a)
		}
		if d := tab.Describe(a); !strings.Contains(d, tt.text) {
			t.Errorf("%s: %q does not say %q", tt.v, d, tt.text)
		}
	}
	if _, err := tab.Lookup("abc"); err == nil {
		t.Error("Lookup(abc): no error")
	}
	empty, _ := New(nil, nil)
	a, _ := empty.Lookup("1.0")
	if a.Covered || !strings.Contains(empty.Describe(a), "empty") {
		t.Errorf("empty table: %+v", a)
	}
}

func TestAdd(t *testing.T) {
	tab, err := New(nil, vs("1=a", "3=a", "5=a", "7=b"))
	if err != nil {
		t.Fatal(err)
	}
	// Same ABI inside a range: no split, the version is now observed.
	if err := Add(tab, Version{Name: "2", Fingerprint: "a"}); err != nil {
		t.Fatal(err)
	}
	if len(tab.Ranges) != 2 || !slices.Equal(tab.Ranges[0].Versions, []string{"1", "2", "3", "5"}) {
		t.Fatalf("after add 2: %+v", tab.Ranges)
	}
	// A different ABI inside a range splits it, and the tail equals the head.
	if err := Add(tab, Version{Name: "4", Fingerprint: "c"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range tab.Ranges {
		s := r.First + ".." + r.Last
		if r.SameAs != nil {
			s += "=" + tab.Ranges[*r.SameAs].First
		}
		got = append(got, s)
	}
	if want := []string{"1..3", "4..4", "5..5=1", "7..7"}; !slices.Equal(got, want) {
		t.Errorf("after add 4: %v, want %v", got, want)
	}
	// The ABI of the following range joins at the end.
	if err := Add(tab, Version{Name: "8", Fingerprint: "b"}); err != nil || tab.Ranges[3].Last != "8" {
		t.Errorf("after add 8: %v %+v", err, tab.Ranges)
	}
	if err := Add(tab, Version{Name: "4.0", Fingerprint: "c"}); err == nil || !strings.Contains(err.Error(), "already in the table (as 4)") {
		t.Errorf("add of a duplicate: %v", err)
	}
}

func TestFailed(t *testing.T) {
	tab, err := New(nil, vs("1=a", "2=a", "4=a", "5=b"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.MarkFailed("3", "6"); err != nil {
		t.Fatal(err)
	}
	if err := tab.MarkFailed("2.0"); err == nil || !strings.Contains(err.Error(), "failed and in the table (as 2)") {
		t.Errorf("MarkFailed of an observed version: %v", err)
	}
	// A table made by hand has no index yet; MarkFailed still sees its
	// versions.
	byHand := &table.Table{Ranges: []table.Range{{First: "1", Last: "2", Versions: []string{"1", "2"}, Fingerprint: "a"}}}
	if err := byHand.MarkFailed("2.0"); err == nil || !strings.Contains(err.Error(), "failed and in the table (as 2)") {
		t.Errorf("MarkFailed of an observed version of a table made by hand: %v", err)
	}
	for _, tt := range []struct {
		v       string
		covered bool
		failed  string
		text    string
	}{
		{"1.5", true, "", "inferred"},
		{"2.5", false, "3", "2.5: not covered: between 2 (range 0) and 4 (range 0) lies 3, which could not be built"},
		{"3", false, "3", "3: not covered: this version could not be built; the observed versions around it are 2 (range 0) and 4 (range 0)"},
		{"3.5", false, "3", "between 2 (range 0) and 4 (range 0) lies 3"},
		{"4.5", false, "", "gap between"},
		{"5.5", false, "6", "between 5 (range 1) and none lies 6"},
		{"7", false, "6", "between 5 (range 1) and none lies 6"},
	} {
		a, _ := tab.Lookup(tt.v)
		if a.Covered != tt.covered || a.Failed != tt.failed || !strings.Contains(tab.Describe(a), tt.text) {
			t.Errorf("%s: %+v %q", tt.v, a, tab.Describe(a))
		}
	}
	// Building a failed version later takes it off the list.
	if err := Add(tab, Version{Name: "3", Fingerprint: "a"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Failed, []string{"6"}) {
		t.Errorf("failed after add: %v", tab.Failed)
	}
	if a, _ := tab.Lookup("2.5"); !a.Covered {
		t.Errorf("2.5 after add of 3: %+v", a)
	}
	var buf strings.Builder
	tab.WriteJSON(&buf)
	back, err := ReadJSON("t.json", []byte(buf.String()))
	if err != nil || !slices.Equal(back.Failed, []string{"6"}) {
		t.Errorf("round trip: %v %v", err, back)
	}
	for _, bad := range []string{
		`{"ranges":[{"first":"1","last":"1","versions":["1"],"fingerprint":"a"}],"failed":["1.0"]}`,
		`{"ranges":[],"failed":["2","1"]}`,
		`{"ranges":[],"failed":["x"]}`,
	} {
		if _, err := ReadJSON("t.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "failed") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func structABI(size int64, members ...abi.Member) *abi.ABI {
	return &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugHeaders, Symbols: []abi.Symbol{}, Roots: []string{"struct s"},
		Types: map[string]*abi.Type{
			"struct s": {Kind: abi.Struct, Name: "s", Size: size, Members: members},
			"int":      {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
			"long":     {Kind: abi.Base, Name: "long", Size: 8, Encoding: "signed"},
		}}
}

func TestChanges(t *testing.T) {
	i := &abi.Type{Ref: "int"}
	l := &abi.Type{Ref: "long"}
	a := structABI(8, abi.Member{Name: "x", Offset: 0, Type: i}, abi.Member{Name: "y", Offset: 4, Type: i})
	b := structABI(16, abi.Member{Name: "x", Offset: 0, Type: i}, abi.Member{Name: "y", Offset: 8, Type: l})
	c := structABI(16, abi.Member{Name: "x", Offset: 0, Type: i}, abi.Member{Name: "y", Offset: 8, Type: l}, abi.Member{Name: "z", Offset: 12, Type: i})
	tab, err := New([]string{"s"}, []Version{{Name: "1", ABI: a}, {Name: "2", ABI: b}, {Name: "3", ABI: c}, {Name: "4", ABI: a}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Ranges) != 4 || tab.Ranges[3].SameAs == nil || *tab.Ranges[3].SameAs != 0 {
		t.Fatalf("ranges: %+v", tab.Ranges)
	}
	if len(tab.Ranges[0].Changes) != 0 {
		t.Errorf("first range has changes: %+v", tab.Ranges[0].Changes)
	}
	has := func(r int, want table.Change) {
		t.Helper()
		for _, c := range tab.Ranges[r].Changes {
			c.Text, c.Kind, c.Note = "", "", ""
			if c == want {
				return
			}
		}
		t.Errorf("range %d: no change %+v in %+v", r, want, tab.Ranges[r].Changes)
	}
	has(1, table.Change{Type: "struct s", Path: "size", Old: "8", New: "16"})
	has(1, table.Change{Type: "struct s", Path: "y.offset", Old: "4", New: "8"})
	has(1, table.Change{Type: "struct s", Path: "y.type", Old: "int", New: "long"})
	has(2, table.Change{Type: "struct s", Path: "z", New: "int at offset 12", Compatible: true})
	has(3, table.Change{Type: "struct s", Path: "z"})
}

func TestReadJSON(t *testing.T) {
	a := structABI(8, abi.Member{Name: "x", Type: &abi.Type{Ref: "int"}})
	b := structABI(4)
	tab, err := New([]string{"s"}, []Version{{Name: "1", ABI: a}, {Name: "2", ABI: b}, {Name: "3", ABI: a}})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON("t.json", []byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Ranges) != 3 || *back.Ranges[2].SameAs != 0 || len(back.ABIs) != 2 {
		t.Errorf("round trip: %+v", back)
	}
	if strings.Contains(buf.String(), "null") {
		t.Errorf("null in the JSON:\n%s", buf.String())
	}
	bad := []struct{ in, want string }{
		{``, "not a range table"},
		{`[]`, "not a range table"},
		{`{}`, `no "ranges"`},
		{`{"ranges":[{"first":"1","last":"1","versions":[],"fingerprint":"a"}]}`, "range 0: no versions"},
		{`{"ranges":[{"first":"1","last":"1","versions":["1"]}]}`, "no fingerprint"},
		{`{"ranges":[{"first":"1","last":"2","versions":["1"],"fingerprint":"a"}]}`, "do not match"},
		{`{"ranges":[{"first":"x","last":"x","versions":["x"],"fingerprint":"a"}]}`, "does not start with a number"},
		{`{"ranges":[{"first":"2","last":"1","versions":["2","1"],"fingerprint":"a"}]}`, "1 does not come after 2"},
		{`{"ranges":[{"first":"1","last":"1","versions":["1"],"fingerprint":"a"},{"first":"2","last":"2","versions":["2"],"fingerprint":"a"}]}`, "same fingerprint as the range before"},
		{`{"ranges":[{"first":"1","last":"1","versions":["1"],"fingerprint":"a"},{"first":"2","last":"2","versions":["2"],"fingerprint":"b","same_as":0}]}`, "same_as 0"},
		{`{"ranges":[{"first":"1","last":"1","versions":["1"],"fingerprint":"a","same_as":-1}]}`, "same_as -1"},
		{`{"ranges":[],"abis":{"sha256:x":{"schema":1}}}`, "does not have that fingerprint"},
	}
	for _, tt := range bad {
		_, err := ReadJSON("t.json", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "t.json: ") {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

func FuzzReadJSON(f *testing.F) {
	f.Add([]byte(`{"types":[],"ranges":[{"first":"1","last":"2","versions":["1","2"],"fingerprint":"a","changes":[]},{"first":"3","last":"3","versions":["3"],"fingerprint":"b"},{"first":"4","last":"4","versions":["4"],"fingerprint":"a","same_as":0}]}`))
	f.Add([]byte(`{"ranges":[],"abis":{"sha256:x":{"schema":1,"types":{"struct s":{"kind":"struct","members":[{"name":"x","type":{"ref":"int"}}]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tab, err := ReadJSON("f.json", b)
		if err != nil {
			return
		}
		// A table that reads back must answer lookups and survive a
		// rebuild with one more version.
		for _, v := range []string{"0", "1", "2.5", "1000"} {
			if _, err := tab.Lookup(v); err != nil {
				t.Fatal(err)
			}
		}
		_ = Add(tab, Version{Name: "3.5", Fingerprint: "z"})
		var buf strings.Builder
		if err := tab.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadJSON("again.json", []byte(buf.String())); err != nil {
			t.Fatalf("a table written after Add does not read back: %v\n%s", err, buf.String())
		}
	})
}

// index, before and after are the range indexes of an answer, -1 for
// none, as the tests were written.
func index(a table.Answer) int {
	if a.Range == nil {
		return -1
	}
	return a.Index
}

func before(a table.Answer) int {
	if a.Before == nil {
		return -1
	}
	return a.Before.Index
}

func after(a table.Answer) int {
	if a.After == nil {
		return -1
	}
	return a.After.Index
}

// ReadJSON parses and checks a table (table.ReadJSON), and the ABIs it
// stores. name is used in errors.
func ReadJSON(name string, b []byte) (*table.Table, error) {
	t, err := table.ReadJSON(name, b)
	if err != nil {
		return nil, err
	}
	if _, err := ABIs(t); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}
