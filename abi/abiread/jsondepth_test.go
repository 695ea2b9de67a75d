package abiread

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
)

// pointerChain is ABI JSON whose one symbol's type is a pointer chain
// depth deep, as written at test time (issue 28 item 12).
func pointerChain(depth int) []byte {
	t := `{"ref":"int"}`
	var b strings.Builder
	b.WriteString(`{"schema":2,"arch":"x86_64","debug_info":"dwarf","types":{"int":{"kind":"base","name":"int","size":4,"encoding":"signed"}},"symbols":[{"name":"f","kind":"object","binding":"global","size":8,"type":`)
	b.WriteString(strings.Repeat(`{"kind":"pointer","size":8,"elem":`, depth))
	b.WriteString(t)
	b.WriteString(strings.Repeat("}", depth))
	b.WriteString(`}]}`)
	return []byte(b.String())
}

// TestJSONNesting: ABI JSON whose types nest deeper than maxJSONDepth (a
// pointer chain 9,000 deep in 315 KB) is refused with an error naming
// the file and the symbol; as deep as the bound is read, in a member of a
// named type too.
func TestJSONNesting(t *testing.T) {
	if _, err := parseJSON("deep.json", pointerChain(9000)); err == nil ||
		!strings.HasPrefix(err.Error(), "deep.json: ABI JSON: the type of symbol \"f\" nests deeper than 512") {
		t.Errorf("9,000 deep: %v", err)
	}
	a, err := parseJSON("ok.json", pointerChain(maxJSONDepth))
	if err != nil {
		t.Fatal(err)
	}
	if s := abi.Spell(a.Symbols[0].Type); s != "int "+strings.Repeat("*", maxJSONDepth) {
		t.Errorf("spelled %.40q", s)
	}
	member := strings.Repeat(`{"kind":"const","elem":`, maxJSONDepth) + `{"ref":"int"}` + strings.Repeat("}", maxJSONDepth)
	doc := `{"schema":2,"types":{"struct s":{"kind":"struct","name":"s","size":4,"members":[{"name":"m","offset":0,"type":` + member + `}]}},"symbols":[]}`
	if _, err := parseJSON("member.json", []byte(doc)); err == nil || !strings.Contains(err.Error(), `member.json: ABI JSON: type "struct s" nests deeper than 512`) {
		t.Errorf("member: %v", err)
	}
}

// FuzzParseJSON: any ABI JSON is read or refused with an error naming the
// file, and what is read nests within the bound, spells and writes back.
func FuzzParseJSON(f *testing.F) {
	if golden, err := os.ReadFile("../../cmd/abifloor/testdata/golden/abi_dump_json.golden"); err == nil {
		f.Add(strings.ReplaceAll(string(golden), "FUNC_SIZE", "16"))
	}
	f.Add(string(pointerChain(40)))
	f.Add(`{"schema":1,"types":{"t":{"kind":"typedef","name":"t","elem":{"ref":"t"}}},"symbols":[{"name":"v","kind":"object","binding":"global","type":{"kind":"array","count":-1,"elem":{"kind":"func","params":[{"ref":"t"}],"variadic":true}}}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		a, err := parseJSON("fuzz.json", []byte(doc))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if err := checkNesting(a); err != nil {
			t.Fatal(err)
		}
		for _, s := range a.Symbols {
			abi.Spell(s.Type)
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatal(err)
		}
	})
}
