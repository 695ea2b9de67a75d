package floor

// Demangle rewrites the symbol names of the result in place, as demangle
// spells them (abi.Demangle: "" for a name that is not mangled, which
// stays as it is): the violations' symbols, each file's symbols behind its
// floors, and the symbols and functions of every attribution.
func (res *Result) Demangle(demangle func(string) string) {
	name := func(s *string) {
		if d := demangle(*s); d != "" {
			*s = d
		}
	}
	refs := func(rs []Ref) {
		for i := range rs {
			name(&rs[i].Name)
		}
	}
	attrs := func(as []Attribution) {
		for i := range as {
			name(&as[i].Symbol.Name)
			for j := range as[i].Sites {
				s := &as[i].Sites[j]
				name(&s.Function)
				for k := range s.Inlined {
					name(&s.Inlined[k].Function)
				}
			}
		}
	}
	for i := range res.Violations {
		refs(res.Violations[i].Symbols)
		attrs(res.Violations[i].Attribution)
	}
	for _, f := range res.Files {
		for _, syms := range f.Why {
			refs(syms)
		}
		attrs(f.Attribution)
	}
}
