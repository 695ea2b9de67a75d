package abidiff

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/internal/limits"
)

// A suppression file is untrusted input (docs/security.md), and Go's
// regexp matches in time proportional to the program's size times the
// text's length. These bound what one file can make a comparison do.
const (
	// maxRegexpBytes bounds one pattern; a longer one is an error
	// naming the file and line. libabigail's own files and the long
	// alternations of symbol names projects generate stay far below.
	maxRegexpBytes = limits.RegexpBytes
	// maxRegexpInsts bounds one compiled pattern ("(?:x){1000}" is
	// short text and a long program), and maxFileInsts all of a file's:
	// compiled programs cost memory.
	maxRegexpInsts = limits.RegexpInsts
	maxFileInsts   = limits.FileInsts
	// maxMatchCost bounds one match: program size times the text's
	// length (the worst case of Go's matcher). A match past it is not
	// tried, and the rule hides nothing there: a change is reported
	// rather than hidden by a match never made. A note says so.
	maxMatchCost = limits.MatchCost
	// maxMatchWork bounds a comparison's matching, in the same unit
	// plus a fixed charge per rule tried: past it no rule hides any
	// further change, and a note says so. The indexes below keep
	// ordinary files far below it (a rule is tried only on a name that
	// holds its literal text).
	maxMatchWork = limits.MatchWork
	// ruleCharge is what trying one rule on one change costs besides
	// its regexps, and matchCharge what one match costs besides its
	// steps (a few hundred nanoseconds: the unit is near a nanosecond).
	ruleCharge  = 256
	matchCharge = 64
	// maxKeyBytes bounds the literal a rule is indexed by.
	maxKeyBytes = 32
)

// rx is a compiled regexp of a suppression file and the size of its
// program; it is matched through a meter.
type rx struct {
	re    *regexp.Regexp
	insts int
	where string // file:line, for the notes
	lit   string // literal every match holds (literalOf)
}

// compiler compiles one file's regexps and counts their programs.
type compiler struct{ insts int }

func (c *compiler) compile(where, pattern string) (*rx, error) {
	if len(pattern) > maxRegexpBytes {
		return nil, fmt.Errorf("regexp of %d bytes: at most %d are read", len(pattern), maxRegexpBytes)
	}
	p, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	// Simplify returns a new tree: p stays as parsed for required.
	prog, err := syntax.Compile(p.Simplify())
	if err != nil {
		return nil, err
	}
	n := len(prog.Inst)
	if n > maxRegexpInsts {
		return nil, fmt.Errorf("regexp compiles to %d instructions: at most %d", n, maxRegexpInsts)
	}
	if c.insts += n; c.insts > maxFileInsts {
		return nil, fmt.Errorf("the file's regexps compile to more than %d instructions", maxFileInsts)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return &rx{re: re, insts: n, where: where, lit: required(p, 0)}, nil
}

// shorten quotes a value for an error message, cut to 120 bytes with its
// length stated.
func shorten(v string) string {
	const max = 120
	if len(v) <= max {
		return v
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", v[:cut], len(v))
}

// meter charges a comparison's matching to maxMatchWork and records what
// was not matched. A rule is tried within try: a match the meter refuses
// fails the whole rule, so a refusal never lets a rule hide a change.
type meter struct {
	work    int64
	tried   int // rules tried
	spent   bool
	refused bool // set by a refusal within the current try
	// long are the rules whose regexp was not matched against a name
	// too long for it, with one such name's length.
	long     map[string]int
	longKeys []string
}

// match is re.MatchString(s) within the bounds. m may be nil (a match
// outside a comparison): the bound per match still holds.
func (m *meter) match(re *rx, s string) bool {
	cost := int64(re.insts) * int64(len(s)+1)
	if cost > maxMatchCost {
		if m != nil {
			m.refused = true
			if m.long == nil {
				m.long = map[string]int{}
			}
			if _, ok := m.long[re.where]; !ok {
				m.longKeys = append(m.longKeys, re.where)
			}
			m.long[re.where] = max(m.long[re.where], len(s))
		}
		return false
	}
	if m == nil {
		return re.re.MatchString(s)
	}
	if m.spent {
		m.refused = true
		return false
	}
	if m.work += cost + matchCharge; m.work > maxMatchWork {
		m.spent, m.refused = true, true
		return false
	}
	return re.re.MatchString(s)
}

// try runs one rule's match; a refused match inside it makes it fail.
func (m *meter) try(f func() bool) bool { return m.tryOr(false, f) }

// tryOr runs one rule's match; a refused match inside it makes the
// result refused: false for a rule that hides, true for an [allow_type]
// (whose match makes a change reported).
func (m *meter) tryOr(refused bool, f func() bool) bool {
	if m == nil {
		return f()
	}
	if m.spent {
		return refused
	}
	m.tried++
	if m.work += ruleCharge; m.work > maxMatchWork {
		m.spent = true
		return refused
	}
	m.refused = false
	ok := f()
	if m.refused {
		m.refused = false
		return refused
	}
	return ok
}

// notes says what the meter did not match, for the report.
func (m *meter) notes() []string {
	if m == nil {
		return nil
	}
	var out []string
	for i, w := range m.longKeys {
		if i == 8 {
			out = append(out, fmt.Sprintf("suppressions: %d more rules not matched against names too long for their regexps", len(m.longKeys)-i))
			break
		}
		out = append(out, fmt.Sprintf("suppressions: %s: a regexp not matched against a name of %d bytes (its program's size times the name's length is over %d): the rule hides nothing there", w, m.long[w], maxMatchCost))
	}
	if m.spent {
		out = append(out, fmt.Sprintf("suppressions: matching stopped after %d steps: changes found past that are reported whether or not a rule would hide them", int64(maxMatchWork)))
	}
	return out
}

// matcher is a Suppressions bound to one comparison: the rules that can
// apply to it (their soname and file properties decided once), indexed so
// that a change is tried only against the rules that could hide it.
type matcher struct {
	meter
	sym, typ, allow, access ruleIndex
	hasAllow                bool
}

func newMatcher(s *Suppressions, sc scope) *matcher {
	m := &matcher{}
	sc.m = &m.meter
	for _, r := range s.rules {
		switch r.section {
		case ruleSymbol:
			m.sym.add(r, "", r.simple)
		case ruleType:
			m.typ.add(r, "", r.simple)
		case secFunction, secVariable:
			if r.unknowable || !m.try(func() bool { return r.inScope(sc) }) {
				continue
			}
			switch {
			case r.name != "":
				m.sym.add(r, r.name, nil)
			case r.symName != "":
				m.sym.add(r, r.symName, nil)
			case r.nameRe != nil && literalOf(r.nameRe) != "":
				m.sym.add(r, "", r.nameRe)
			default:
				m.sym.add(r, "", r.symRe)
			}
		case secType, secAllow:
			if r.section == secAllow {
				m.hasAllow = true
			}
			if r.unknowable || !m.try(func() bool { return r.inScope(sc) }) {
				continue
			}
			x := &m.typ
			switch {
			case r.section == secAllow:
				x = &m.allow
			case r.access != "":
				x = &m.access
			}
			x.add(r, r.name, r.nameRe)
		}
	}
	m.tried = 0
	return m
}

// cands are x's candidates for a change known by keys, the search and
// the list charged to the meter; none once it is spent.
func (m *matcher) cands(x *ruleIndex, keys []string) []int32 {
	if m.spent {
		return nil
	}
	n := 0
	for _, k := range keys {
		n += len(k)
	}
	out := x.candidates(keys)
	m.work += int64(n*maxKeyBytes/4 + len(out))
	return out
}

// ruleIndex finds the rules that may match a change from the strings it
// is known by. A rule is indexed by one thing its match needs: an exact
// name, or a literal every match of one of its regexps contains (looked up
// in a trie of such literals, cut to maxKeyBytes). A rule with neither is
// tried on every change.
type ruleIndex struct {
	rules  []*rule
	exact  map[string][]int32
	edges  map[uint64]int32 // trie: node<<8|byte -> child
	at     [][]int32        // trie node -> rules whose literal ends there
	always []int32
	seen   []uint32 // generation a rule was last found in
	gen    uint32
	out    []int32
}

func (x *ruleIndex) add(r *rule, exact string, re *rx) {
	i := int32(len(x.rules))
	x.rules = append(x.rules, r)
	x.seen = append(x.seen, 0)
	if exact != "" {
		if x.exact == nil {
			x.exact = map[string][]int32{}
		}
		x.exact[exact] = append(x.exact[exact], i)
		return
	}
	lit := ""
	if re != nil {
		lit = literalOf(re)
	}
	if lit == "" {
		x.always = append(x.always, i)
		return
	}
	if len(lit) > maxKeyBytes {
		lit = lit[:maxKeyBytes]
	}
	if x.edges == nil {
		x.edges = map[uint64]int32{}
		x.at = [][]int32{nil}
	}
	n := int32(0)
	for j := 0; j < len(lit); j++ {
		k := uint64(n)<<8 | uint64(lit[j])
		c, ok := x.edges[k]
		if !ok {
			c = int32(len(x.at))
			x.at = append(x.at, nil)
			x.edges[k] = c
		}
		n = c
	}
	x.at[n] = append(x.at[n], i)
}

// candidates are the rules that may match a change known by strs, each
// once, in an order fixed by the rules and strs (the matcher's results do
// not depend on it). The slice is reused by the next call.
func (x *ruleIndex) candidates(strs []string) []int32 {
	x.out = x.out[:0]
	if len(x.rules) == 0 {
		return x.out
	}
	x.gen++
	if x.gen == 0 {
		clear(x.seen)
		x.gen = 1
	}
	found := func(list []int32) {
		for _, i := range list {
			if x.seen[i] != x.gen {
				x.seen[i] = x.gen
				x.out = append(x.out, i)
			}
		}
	}
	found(x.always)
	for _, s := range strs {
		found(x.exact[s])
		if x.edges == nil {
			continue
		}
		// Each start walks at most maxKeyBytes edges: the work is the
		// strings' length times that, whatever the rules.
		for i := 0; i < len(s); i++ {
			n := int32(0)
			for j := i; j < len(s) && j-i < maxKeyBytes; j++ {
				c, ok := x.edges[uint64(n)<<8|uint64(s[j])]
				if !ok {
					break
				}
				n = c
				found(x.at[n])
			}
		}
	}
	return x.out
}

// literalOf is a literal string every match of re contains, or "": the
// longest literal a match must hold in sequence (not under an
// alternation, an optional part or a case folding).
func literalOf(re *rx) string {
	if re == nil {
		return ""
	}
	return re.lit
}

func required(p *syntax.Regexp, depth int) string {
	if depth > 64 {
		return ""
	}
	switch p.Op {
	case syntax.OpLiteral:
		if p.Flags&syntax.FoldCase != 0 {
			return ""
		}
		s := string(p.Rune)
		// An invalid byte of a name matches U+FFFD, which the name
		// does not hold as text.
		if strings.ContainsRune(s, utf8.RuneError) {
			return ""
		}
		return s
	case syntax.OpCapture, syntax.OpPlus:
		return required(p.Sub[0], depth+1)
	case syntax.OpRepeat:
		if p.Min >= 1 {
			return required(p.Sub[0], depth+1)
		}
	case syntax.OpConcat:
		best := ""
		for _, s := range p.Sub {
			if l := required(s, depth+1); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// symbolNames are the names of syms the name properties match: for C the
// function's name is the symbol's name; for C++ it is the qualified name,
// without parameters (lib::take), as libabigail has it, when the
// comparison has a Demangler; the full demangled name and the mangled one
// match too.
func (s *Suppressions) symbolNames(syms []abi.Symbol) []string {
	var names []string
	for _, sym := range syms {
		names = append(names, sym.Name)
		if sym.Demangled != "" {
			names = append(names, sym.Demangled)
			if d, ok := s.shortName(sym.Name); ok {
				names = append(names, d)
			}
		}
	}
	return names
}

// shortName is the qualified name of a mangled symbol without its
// parameters, from the comparison's Demangler; false without one.
func (s *Suppressions) shortName(name string) (string, bool) {
	if s == nil || s.names == nil {
		return "", false
	}
	return s.names.Demangle(name, false)
}
