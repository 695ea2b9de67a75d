package floor

import (
	"strings"

	"github.com/abifloor/abifloor/elfx"
)

// Ref is one reason a file needs a version: an undefined symbol, the
// version it asks for and the library that must provide it, or, for a
// floor no symbol names (GLIBC_ABI_DT_RELR, DT_RELR), that name alone.
// In JSON and text it is written name@VERSION (name alone without a
// version), as objdump and the loader write references.
type Ref struct {
	Name    string
	Version string // the version name (GLIBC_2.34); "" when unversioned
	Library string // the library the version is needed from, when known
}

// refOf is the reference s, an undefined symbol, makes.
func refOf(s elfx.Symbol) Ref { return Ref{Name: s.Name, Version: s.Version, Library: s.Library} }

// String is name@VERSION, or the name alone.
func (r Ref) String() string {
	if r.Version == "" {
		return r.Name
	}
	return r.Name + "@" + r.Version
}

// MarshalText writes r as String does, so a list of references is a list
// of strings in JSON.
func (r Ref) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads what MarshalText writes (the library is not in it).
func (r *Ref) UnmarshalText(b []byte) error {
	name, ver, _ := strings.Cut(string(b), "@")
	*r = Ref{Name: name, Version: ver}
	return nil
}

// compareRefs orders references as their strings sort.
func compareRefs(a, b Ref) int { return strings.Compare(a.String(), b.String()) }

// refStrings are the strings of refs, for text.
func refStrings(refs []Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}
