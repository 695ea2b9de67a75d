package abidiff

import (
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/ianlancetaylor/demangle"
)

// WithPublicTypes returns s (nil is none) knowing the struct, union and
// enum types the public headers of each input define (nil: no headers
// for that side), as abidiff's --headers-dir1/--headers-dir2: a change to
// a type neither side's headers define is private, and hidden; so are the
// types reached only through one, and the member functions of a private
// class. s itself is not changed.
func (s *Suppressions) WithPublicTypes(old, new map[string]bool, oldABI, newABI *abi.ABI) *Suppressions {
	if old == nil && new == nil {
		return s
	}
	c := Suppressions{}
	if s != nil {
		c = *s
	}
	c.public = [2]map[string]bool{old, new}
	c.known = [2]map[string]*abi.Type{oldABI.Types, newABI.Types}
	return &c
}

func (s *Suppressions) knownClass(key string) bool {
	for _, k := range s.known {
		if t := k[key]; t != nil && t.Kind == abi.Struct {
			return true
		}
	}
	return false
}

// privateType reports whether key is a struct, union or enum that no
// public header defines.
func (s *Suppressions) privateType(key string) bool {
	if s == nil || s.public[0] == nil && s.public[1] == nil {
		return false
	}
	if !strings.HasPrefix(key, "struct ") && !strings.HasPrefix(key, "union ") && !strings.HasPrefix(key, "enum ") {
		return false
	}
	return !s.public[0][key] && !s.public[1][key]
}

// privateMember reports whether sym is a member function or static
// member of a private class.
func (s *Suppressions) privateMember(sym abi.Symbol) bool {
	if s == nil || sym.Demangled == "" || s.public[0] == nil && s.public[1] == nil {
		return false
	}
	d, err := demangle.ToString(sym.Name, demangle.NoParams, demangle.NoClones)
	if err != nil {
		return false
	}
	i := strings.LastIndex(d, "::")
	if i <= 0 {
		return false
	}
	cls := d[:i]
	return s.privateType("struct "+cls) && s.knownClass("struct "+cls)
}
