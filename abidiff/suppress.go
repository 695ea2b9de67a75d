package abidiff

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/ianlancetaylor/demangle"
)

// Suppressions hide changes. Two file formats are read:
//
// libabigail's suppression specifications, an INI file of
// [suppress_function], [suppress_variable] and [suppress_type] sections
// (the format abidiff's --suppressions reads; docs/abi-json.md lists the
// properties understood, and any other is an error naming it);
//
// and abifloor's own, one rule per line: "symbol REGEX" or "type REGEX",
// blank lines and lines starting with # ignored. A symbol regex is matched
// against the bare name and against name@VERSION / name@@VERSION; a type
// regex against the type's key ("struct foo", "foo_t").
//
// A file whose first line that is not blank or a comment starts with "[" is
// libabigail's.
type Suppressions struct {
	rules []*rule
	// Warnings say what was read but hides nothing: a section libabigail
	// ignores for want of a property that selects anything, a file that
	// is no suppression file at all. Ignoring them can only report more,
	// never hide a change.
	Warnings []string
	// files are the paths of the old and new inputs, for
	// file_name_regexp; set by WithFiles.
	files []string
	// public are the types the public headers of the old and the new
	// input define (WithPublicTypes), when headers were given.
	public [2]map[string]bool
	// known are the inputs' own types, to tell a class from a namespace.
	known [2]map[string]*abi.Type
}

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

// Section names of libabigail's format, and the kinds of abifloor's rules.
const (
	secFunction = "suppress_function"
	secVariable = "suppress_variable"
	secType     = "suppress_type"
	secAllow    = "allow_type"
	secFile     = "suppress_file"
	ruleSymbol  = "symbol"
	ruleType    = "type"
)

// rule is one section (or one line of the simple format). A nil regexp or
// empty string is a property not given, which matches everything.
type rule struct {
	where   string // file:line of the section, for errors
	section string

	name                     string
	nameRe, nameNotRe        *rx
	symName                  string
	symRe, symNotRe          *rx
	version                  string
	versionRe                *rx
	sonameRe, sonameNotRe    *rx
	fileRe, fileNotRe        *rx
	changeKinds              []string
	typeKind                 string
	typeName                 string // variable type or function return type, spelled in C
	typeNameRe               *rx
	ranges                   [][2]boundary
	enumerators              []string
	enumeratorsRe            *rx
	simple                   *rx // the simple format's REGEX
	hasTypeFilter, hasRanges bool
	// sizeChange is has_size_change = yes: the has_data_member_inserted_*
	// ranges match a type whose size changed too (without it they
	// match only a type that kept its size, as libabigail has it).
	sizeChange bool
	// access is accessed_through: direct, pointer, reference or
	// reference-or-pointer. Such a rule hides a type's change only where
	// it is reached that way (reach.go).
	access string
	// members and membersRe are has_data_member and
	// has_data_member_regexp: the old type has all those members, or
	// one whose name matches.
	members   []string
	membersRe *rx
	// params are parameter properties of a [suppress_function]: the
	// function's parameter at an index has a type so spelled.
	params []paramSpec
	// unknowable is set by a property abifloor cannot evaluate from its
	// ABI model (source_location_not_in, source_location_not_regexp: the
	// model keeps no source locations): such a rule hides nothing, so a
	// change is never hidden by a guess. docs/diff.md says so.
	unknowable bool
	// comp compiles the rule's regexps while its file is read; at is
	// the file:line of the property being read.
	comp *compiler
	at   string
}

// paramSpec is one parameter property: "'N TYPE" or "'N /REGEX/".
type paramSpec struct {
	index int
	name  string
	re    *rx
}

// boundary is one end of a has_data_member_inserted_* range: bits, or
// "end", or offset_of(member) / offset_after(member) in the old type.
type boundary struct {
	bits   int64
	end    bool
	member string
	after  bool
	// re is offset_of_first_data_member_regexp(RE) (last false) or
	// offset_of_last_data_member_regexp(RE): the offset of the first or
	// last member whose name matches.
	re   *rx
	last bool
}

// properties are those read in each section; anything else is an error.
var properties = map[string][]string{
	secFunction: {"label", "drop", "name", "name_regexp", "name_not_regexp", "symbol_name", "symbol_name_regexp", "symbol_name_not_regexp",
		"symbol_version", "symbol_version_regexp", "soname_regexp", "soname_not_regexp", "file_name_regexp", "file_name_not_regexp",
		"change_kind", "return_type_name", "return_type_regexp", "allow_other_aliases", "drop_artifact", "parameter"},
	secVariable: {"label", "drop", "name", "name_regexp", "name_not_regexp", "symbol_name", "symbol_name_regexp", "symbol_name_not_regexp",
		"symbol_version", "symbol_version_regexp", "soname_regexp", "soname_not_regexp", "file_name_regexp", "file_name_not_regexp",
		"change_kind", "type_name", "type_name_regexp", "allow_other_aliases", "drop_artifact"},
	secType: typeProperties,
	// [allow_type] takes [suppress_type]'s properties: a type change
	// that matches no [allow_type] section is suppressed.
	secAllow: typeProperties,
	// [suppress_file]: an input whose name or SONAME matches is not
	// compared at all.
	secFile: {"label", "file_name_regexp", "file_name_not_regexp", "soname_regexp", "soname_not_regexp"},
}

var typeProperties = []string{"label", "drop", "drop_artifact", "name", "name_regexp", "name_not_regexp", "soname_regexp", "soname_not_regexp", "file_name_regexp",
	"file_name_not_regexp", "type_kind", "has_data_member_inserted_at", "has_data_member_inserted_between",
	"has_data_members_inserted_between", "changed_enumerators", "changed_enumerators_regexp", "has_size_change", "accessed_through",
	"has_data_member", "has_data_member_regexp", "source_location_not_in", "source_location_not_regexp"}

// maxRules bounds what one file may declare.
const maxRules = 1 << 16

// ParseSuppressions reads rules from r, in either format; name is used in
// errors.
func ParseSuppressions(name string, r io.Reader) (*Suppressions, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	ini := false
	decided := false
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		lines = append(lines, t)
		if !decided && t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, ";") {
			decided, ini = true, strings.HasPrefix(t, "[")
		}
		if len(lines) > maxRules*8 {
			return nil, fmt.Errorf("%s: more than %d lines", name, maxRules*8)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if ini {
		return parseINI(name, lines)
	}
	if !looksSimple(lines) {
		// libabigail's reader takes a file with no section as one with
		// no suppression (libabigail's own tests pass a report as a
		// suppression file). Ignoring it can only report more.
		return &Suppressions{Warnings: []string{fmt.Sprintf("%s: not a suppression file (no [section] and no \"symbol\" or \"type\" rule): ignored", name)}}, nil
	}
	return parseSimple(name, lines)
}

var ruleWord = regexp.MustCompile(`^[a-z_]+$`)

// looksSimple reports whether some line is, or is shaped like, a rule of
// abifloor's simple format: "symbol REGEX", "type REGEX", or any other
// two words (a misspelt rule, which is an error, not an ignored file).
func looksSimple(lines []string) bool {
	for _, t := range lines {
		if t == "" || t[0] == '#' {
			continue
		}
		kind, _, _ := strings.Cut(t, " ")
		if kind == ruleSymbol || kind == ruleType || len(strings.Fields(t)) == 2 && ruleWord.MatchString(kind) {
			return true
		}
	}
	return false
}

func parseSimple(name string, lines []string) (*Suppressions, error) {
	s := &Suppressions{}
	c := &compiler{}
	for i, t := range lines {
		line := i + 1
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		kind, expr, _ := strings.Cut(t, " ")
		expr = strings.TrimSpace(expr)
		if expr == "" {
			return nil, fmt.Errorf("%s:%d: want \"symbol REGEX\" or \"type REGEX\" (or a libabigail file starting with [suppress_...])", name, line)
		}
		if kind != ruleSymbol && kind != ruleType {
			return nil, fmt.Errorf("%s:%d: unknown rule %q (want symbol or type)", name, line, shorten(kind))
		}
		where := fmt.Sprintf("%s:%d", name, line)
		re, err := c.compile(where, expr)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		s.rules = append(s.rules, &rule{where: where, section: kind, simple: re})
	}
	return s, nil
}

// sufficient are the properties of which a section needs one to select
// anything; libabigail ignores a section with none (a lone change_kind,
// or has_data_member_inserted_at alone).
var sufficient = map[string][]string{
	secFunction: {"label", "file_name_regexp", "file_name_not_regexp", "soname_regexp", "soname_not_regexp", "name", "name_regexp", "name_not_regexp",
		"parameter", "return_type_name", "return_type_regexp", "symbol_name", "symbol_name_regexp", "symbol_name_not_regexp", "symbol_version", "symbol_version_regexp"},
	secVariable: {"label", "file_name_regexp", "file_name_not_regexp", "soname_regexp", "soname_not_regexp", "name", "name_regexp", "name_not_regexp",
		"symbol_name", "symbol_name_regexp", "symbol_name_not_regexp", "symbol_version", "symbol_version_regexp", "type_name", "type_name_regexp"},
	secType: {"file_name_regexp", "file_name_not_regexp", "soname_regexp", "soname_not_regexp", "name", "name_regexp", "name_not_regexp", "type_kind",
		"source_location_not_in", "source_location_not_regexp"},
	secFile: {"file_name_regexp", "file_name_not_regexp", "soname_regexp", "soname_not_regexp"},
}

func init() { sufficient[secAllow] = sufficient[secType] }

// joinContinued joins a value that goes on over the next lines: one left
// empty after "=", or a brace not yet closed, as libabigail's reader reads
// "has_data_member_inserted_between =" followed by "{ ... }" on lines of
// their own. The joined value stays on the property's line.
//
// The pieces are gathered and joined once, so a value spread over many
// lines costs its length, not its length squared; a line scanned past
// (blank, comment) is scanned by one property only.
func joinContinued(lines []string) []string {
	out := slices.Clone(lines)
	var parts []string
	for i := 0; i < len(out); i++ {
		t := out[i]
		if t == "" || t[0] == '[' || t[0] == '#' || t[0] == ';' {
			continue
		}
		_, val, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		open := strings.Count(val, "{") - strings.Count(val, "}")
		if val != "" && open <= 0 {
			continue
		}
		parts = append(parts[:0], t)
		some := val != ""
		j := i + 1
		for ; j < len(out) && j < i+1+maxRules; j++ {
			n := out[j]
			if n == "" || n[0] == '#' || n[0] == ';' {
				continue
			}
			if n[0] == '[' || some && open <= 0 || !some && strings.Contains(n, "=") && !strings.HasPrefix(n, "{") {
				break
			}
			parts = append(parts, n)
			some = true
			open += strings.Count(n, "{") - strings.Count(n, "}")
			out[j] = ""
			if open <= 0 {
				break
			}
		}
		out[i] = strings.Join(parts, " ")
		// The lines up to j are consumed or blank: none starts a
		// property of its own.
		if j > i+1 {
			i = j - 1
		}
	}
	return out
}

func parseINI(name string, lines []string) (*Suppressions, error) {
	s := &Suppressions{}
	var cur *rule
	var given map[string]bool
	c := &compiler{}
	lines = joinContinued(lines)
	check := func() {
		if cur == nil || cur.section == "" {
			return
		}
		for _, k := range sufficient[cur.section] {
			if given[k] {
				return
			}
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: [%s] names nothing to select (none of %s): ignored, as libabigail ignores it", cur.where, cur.section, strings.Join(sufficient[cur.section], ", ")))
		s.rules = slices.DeleteFunc(s.rules, func(r *rule) bool { return r == cur })
	}
	defer check()
	for i, t := range lines {
		line := i + 1
		at := fmt.Sprintf("%s:%d", name, line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") {
			continue
		}
		if strings.HasPrefix(t, "[") {
			sec, ok := strings.CutSuffix(t[1:], "]")
			sec = strings.TrimSpace(sec)
			if !ok {
				return nil, fmt.Errorf("%s: section header %q lacks its ]", at, shorten(t))
			}
			if _, known := properties[sec]; !known {
				return nil, fmt.Errorf("%s: section [%s] is not supported (supported: [suppress_function], [suppress_variable], [suppress_type], [allow_type], [suppress_file])", at, sec)
			}
			if len(s.rules) >= maxRules {
				return nil, fmt.Errorf("%s: more than %d sections", at, maxRules)
			}
			check()
			cur = &rule{where: at, section: sec, comp: c}
			given = map[string]bool{}
			s.rules = append(s.rules, cur)
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			return nil, fmt.Errorf("%s: want \"property = value\", got %q", at, shorten(t))
		}
		if cur == nil {
			return nil, fmt.Errorf("%s: property outside a section", at)
		}
		key, val = strings.TrimSpace(key), iniValue(unquote(strings.TrimSpace(val)))
		if !slices.Contains(properties[cur.section], key) {
			return nil, fmt.Errorf("%s: [%s]: property %q is not supported (supported: %s)", at, cur.section, shorten(key), strings.Join(properties[cur.section], ", "))
		}
		if given[key] && key != "parameter" {
			return nil, fmt.Errorf("%s: [%s]: property %q given twice", at, cur.section, shorten(key))
		}
		given[key] = true
		cur.at = at
		if err := cur.set(key, val); err != nil {
			return nil, fmt.Errorf("%s: [%s] %s: %v", at, cur.section, key, err)
		}
	}
	return s, nil
}

// iniValue reads backslash escapes as libabigail's ini reader does: a
// backslash takes the next character as it is, so the file's "\\." is
// the regexp "\.".
func iniValue(v string) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			switch c = v[i]; c {
			case '0', 'a', 'b', 'r':
				c = ' '
			case 't':
				c = '\t'
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// set reads one property into r.
func (r *rule) set(key, val string) error {
	re := func(p **rx) error {
		var err error
		*p, err = r.comp.compile(r.at, val)
		return err
	}
	switch key {
	case "label":
	case "has_size_change":
		// libabigail's reader ends a value at a ';' comment.
		v, _, _ := strings.Cut(val, ";")
		v = strings.TrimSpace(v)
		r.sizeChange = v == "yes" || v == "true"
	case "source_location_not_in", "source_location_not_regexp":
		r.unknowable = true
	case "accessed_through":
		switch val {
		case "direct", "pointer", "reference", "reference-or-pointer":
			r.access = val
		default:
			return fmt.Errorf("want direct, pointer, reference or reference-or-pointer, got %q", shorten(val))
		}
	case "has_data_member":
		v := strings.TrimSpace(val)
		if inner, ok := strings.CutPrefix(v, "{"); ok {
			if v, ok = strings.CutSuffix(inner, "}"); !ok {
				return fmt.Errorf("want {MEMBER, ...}, got %q", shorten(val))
			}
		}
		r.members = splitList(v)
		if len(r.members) == 0 {
			return fmt.Errorf("no member named")
		}
	case "has_data_member_regexp":
		return re(&r.membersRe)
	case "parameter":
		p, err := parseParam(r.comp, r.at, val)
		if err != nil {
			return err
		}
		r.params = append(r.params, p)
	case "drop", "drop_artifact", "allow_other_aliases":
		// drop = yes removes the matched artifacts before comparing;
		// for a report that is the same as suppressing them.
		// allow_other_aliases = yes is libabigail's default and the
		// only behaviour here (each alias is a symbol of its own).
		if val != "yes" && val != "no" && val != "true" && val != "false" {
			return fmt.Errorf("want yes or no, got %q", shorten(val))
		}
		if key == "allow_other_aliases" && (val == "no" || val == "false") {
			return fmt.Errorf("only yes is supported")
		}
	case "name":
		r.name = val
	case "name_regexp":
		return re(&r.nameRe)
	case "name_not_regexp":
		return re(&r.nameNotRe)
	case "symbol_name":
		r.symName = val
	case "symbol_name_regexp":
		return re(&r.symRe)
	case "symbol_name_not_regexp":
		return re(&r.symNotRe)
	case "symbol_version":
		r.version = val
	case "symbol_version_regexp":
		return re(&r.versionRe)
	case "soname_regexp":
		return re(&r.sonameRe)
	case "soname_not_regexp":
		return re(&r.sonameNotRe)
	case "file_name_regexp":
		return re(&r.fileRe)
	case "file_name_not_regexp":
		return re(&r.fileNotRe)
	case "type_name", "return_type_name":
		r.typeName, r.hasTypeFilter = val, true
	case "type_name_regexp", "return_type_regexp":
		r.hasTypeFilter = true
		return re(&r.typeNameRe)
	case "change_kind":
		thing := "function"
		if r.section == secVariable {
			thing = "variable"
		}
		ok := []string{"all", thing + "-subtype-change", "added-" + thing, "deleted-" + thing}
		for _, k := range splitList(val) {
			if !slices.Contains(ok, k) {
				return fmt.Errorf("unknown change kind %q (want %s)", shorten(k), strings.Join(ok, ", "))
			}
			r.changeKinds = append(r.changeKinds, k)
		}
	case "type_kind":
		switch val {
		case "class", "struct", "union", "enum", "array", "typedef", "builtin":
			r.typeKind = val
		default:
			return fmt.Errorf("unknown type kind %q (want class, struct, union, enum, array, typedef or builtin)", shorten(val))
		}
	case "has_data_member_inserted_at":
		b, err := parseBoundary(r.comp, r.at, val)
		if err != nil {
			return err
		}
		r.ranges, r.hasRanges = append(r.ranges, [2]boundary{b, {end: true}}), true
	case "has_data_member_inserted_between":
		rg, err := parseRange(r.comp, r.at, val)
		if err != nil {
			return err
		}
		r.ranges, r.hasRanges = append(r.ranges, rg), true
	case "has_data_members_inserted_between":
		v := strings.TrimSpace(val)
		inner, ok := strings.CutPrefix(v, "{")
		if inner, ok2 := strings.CutSuffix(inner, "}"); ok && ok2 {
			r.hasRanges = true
			for _, part := range strings.SplitAfter(inner, "}") {
				part = strings.TrimLeft(strings.TrimSpace(part), ", ")
				if part == "" {
					continue
				}
				rg, err := parseRange(r.comp, r.at, part)
				if err != nil {
					return err
				}
				r.ranges = append(r.ranges, rg)
			}
			return nil
		}
		return fmt.Errorf("want {{BEGIN, END}, ...}, got %q", shorten(val))
	case "changed_enumerators":
		r.enumerators = splitList(val)
	case "changed_enumerators_regexp":
		return re(&r.enumeratorsRe)
	}
	return nil
}

// parseParam reads a parameter property: an apostrophe, the parameter's
// index (0 is the first, or the implicit this of a member function, as
// libabigail counts), a space, then the type's name or a regexp between
// slashes.
func parseParam(c *compiler, where, v string) (paramSpec, error) {
	v = strings.TrimSpace(v)
	rest, ok := strings.CutPrefix(v, "'")
	if !ok {
		return paramSpec{}, fmt.Errorf("want 'INDEX TYPE, got %q", shorten(v))
	}
	num, typ, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > 1<<16 {
		return paramSpec{}, fmt.Errorf("want 'INDEX TYPE, got %q", shorten(v))
	}
	p := paramSpec{index: n}
	typ = strings.TrimSpace(typ)
	if inner, ok := strings.CutPrefix(typ, "/"); ok && strings.HasSuffix(inner, "/") && len(inner) > 0 {
		p.re, err = c.compile(where, inner[:len(inner)-1])
		return p, err
	}
	if typ == "" {
		return paramSpec{}, fmt.Errorf("want 'INDEX TYPE, got %q", shorten(v))
	}
	p.name = typ
	return p, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func parseRange(c *compiler, where, v string) ([2]boundary, error) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(v), "{")
	inner, ok2 := strings.CutSuffix(inner, "}")
	// offset_of(m) has no comma, so the first comma splits the pair.
	b, e, ok3 := strings.Cut(inner, ",")
	if !ok || !ok2 || !ok3 {
		return [2]boundary{}, fmt.Errorf("want {BEGIN, END}, got %q", shorten(v))
	}
	begin, err := parseBoundary(c, where, b)
	if err != nil {
		return [2]boundary{}, err
	}
	end, err := parseBoundary(c, where, e)
	return [2]boundary{begin, end}, err
}

func parseBoundary(c *compiler, where, v string) (boundary, error) {
	v = strings.TrimSpace(v)
	if v == "end" {
		return boundary{end: true}, nil
	}
	for _, f := range []string{"offset_of_first_data_member_regexp", "offset_of_last_data_member_regexp"} {
		if arg, ok := strings.CutPrefix(v, f+"("); ok {
			arg, ok := strings.CutSuffix(arg, ")")
			if arg = strings.TrimSpace(arg); !ok || arg == "" {
				return boundary{}, fmt.Errorf("want %s(REGEX), got %q", f, shorten(v))
			}
			re, err := c.compile(where, arg)
			if err != nil {
				return boundary{}, err
			}
			return boundary{re: re, last: strings.Contains(f, "_last_")}, nil
		}
	}
	for _, f := range []string{"offset_of", "offset_after"} {
		if arg, ok := strings.CutPrefix(v, f+"("); ok {
			arg, ok := strings.CutSuffix(arg, ")")
			if arg = strings.TrimSpace(arg); !ok || arg == "" {
				return boundary{}, fmt.Errorf("want %s(MEMBER), got %q", f, shorten(v))
			}
			return boundary{member: arg, after: f == "offset_after"}, nil
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return boundary{}, fmt.Errorf("want a bit offset, end, offset_of(MEMBER) or offset_after(MEMBER), got %q", shorten(v))
	}
	return boundary{bits: n}, nil
}

// JoinSuppressions merges the rules of several files (--suppressions given
// more than once). Nil entries are skipped; all nil gives nil.
func JoinSuppressions(list ...*Suppressions) *Suppressions {
	var out *Suppressions
	for _, s := range list {
		if s == nil {
			continue
		}
		if out == nil {
			out = &Suppressions{}
		}
		out.rules = append(out.rules, s.rules...)
		out.Warnings = append(out.Warnings, s.Warnings...)
	}
	return out
}

// WithFiles returns s knowing the paths of the two inputs, which
// file_name_regexp and file_name_not_regexp are matched against (a rule
// applies when either input's path matches). s itself is not changed.
func (s *Suppressions) WithFiles(old, new string) *Suppressions {
	if s == nil {
		return nil
	}
	c := *s
	c.files = []string{old, new}
	return &c
}

// scope is what a rule's soname and file properties are matched against.
type scope struct {
	sonames []string
	files   []string
	// x is the comparison's matcher (its meter is m); nil outside a
	// comparison.
	x *matcher
	m *meter
}

// matcher is sc's matcher, or a new one for s.
func (s *Suppressions) matcher(sc *scope) *matcher {
	if sc.x == nil {
		sc.x = newMatcher(s, *sc)
		sc.m = &sc.x.meter
	}
	return sc.x
}

func anyMatch(m *meter, re *rx, list []string) bool {
	for _, s := range list {
		if m.match(re, s) || m.match(re, filepath.Base(s)) {
			return true
		}
	}
	return false
}

// inScope applies the soname and file name properties.
func (r *rule) inScope(sc scope) bool {
	m := sc.m
	if r.sonameRe != nil && !anyMatch(m, r.sonameRe, sc.sonames) ||
		r.sonameNotRe != nil && anyMatch(m, r.sonameNotRe, sc.sonames) ||
		r.fileRe != nil && !anyMatch(m, r.fileRe, sc.files) ||
		r.fileNotRe != nil && anyMatch(m, r.fileNotRe, sc.files) {
		return false
	}
	return true
}

// symbol reports whether s hides the change c to sym (either ABI's copy
// of the symbol).
func (s *Suppressions) symbol(sym abi.Symbol, c Kind, sc scope) bool {
	if s == nil {
		return false
	}
	if s.privateMember(sym) {
		return true
	}
	x := s.matcher(&sc)
	names := symbolNames([]abi.Symbol{sym})
	keys := append(names[:len(names):len(names)], sym.String())
	for _, i := range x.cands(&x.sym, keys) {
		r := x.sym.rules[i]
		if x.try(func() bool { return r.matchSymbolNames(sym, names, c, sc) }) {
			return true
		}
	}
	return false
}

// addedGroup reports whether s hides the addition of the function or
// variable whose symbols (a name and its aliases) are group, as
// libabigail 2.3 does: one rule must match every symbol, its name
// properties matched for C++ against the name of any of them (the
// aliases share one declaration and its name).
func (s *Suppressions) addedGroup(group []abi.Symbol, sc scope) bool {
	if s == nil {
		return false
	}
	x := s.matcher(&sc)
	groupNames := symbolNames(group)
	keys := slices.Clone(groupNames)
	own := make([][]string, len(group))
	for j, sym := range group {
		keys = append(keys, sym.String())
		own[j] = groupNames
		if sym.Demangled == "" {
			own[j] = symbolNames(group[j : j+1])
		}
	}
	for _, i := range x.cands(&x.sym, keys) {
		r := x.sym.rules[i]
		all := true
		for j, sym := range group {
			if !x.try(func() bool { return r.matchSymbolNames(sym, own[j], SymbolAdded, sc) }) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// matchSymbolNames reports whether r hides the change c to sym, its name
// properties matched against names (symbolNames: sym's own, or those of
// the aliases it was added with). The matcher has applied the rule's
// soname and file properties.
func (r *rule) matchSymbolNames(sym abi.Symbol, names []string, c Kind, sc scope) bool {
	m := sc.m
	switch r.section {
	case ruleSymbol:
		return m.match(r.simple, sym.Name) || m.match(r.simple, sym.String())
	case secFunction:
		if !sym.Kind.IsFunc() {
			return false
		}
	case secVariable:
		if sym.Kind.IsFunc() {
			return false
		}
	default:
		return false
	}
	if r.unknowable {
		return false
	}
	anyName := func(re *rx) bool { return slices.ContainsFunc(names, func(n string) bool { return m.match(re, n) }) }
	if r.name != "" && !slices.Contains(names, r.name) || r.nameRe != nil && !anyName(r.nameRe) || r.nameNotRe != nil && anyName(r.nameNotRe) {
		return false
	}
	if r.symName != "" && r.symName != sym.Name || r.symRe != nil && !m.match(r.symRe, sym.Name) || r.symNotRe != nil && m.match(r.symNotRe, sym.Name) {
		return false
	}
	if r.version != "" && r.version != sym.Version || r.versionRe != nil && !m.match(r.versionRe, sym.Version) {
		return false
	}
	if len(r.changeKinds) > 0 && !slices.Contains(r.changeKinds, "all") {
		thing := "function"
		if r.section == secVariable {
			thing = "variable"
		}
		k := thing + "-subtype-change"
		switch c {
		case SymbolRemoved:
			k = "deleted-" + thing
		case SymbolAdded:
			k = "added-" + thing
		}
		if !slices.Contains(r.changeKinds, k) {
			return false
		}
	}
	if len(r.params) > 0 && !r.paramsMatch(sym, m) {
		return false
	}
	if r.hasTypeFilter {
		t := sym.Type
		if t != nil && r.section == secFunction {
			t = t.Elem
		}
		if t == nil {
			return false
		}
		spelled := abi.Spell(t)
		if r.typeName != "" && r.typeName != spelled || r.typeNameRe != nil && !m.match(r.typeNameRe, spelled) {
			return false
		}
	}
	return true
}

// typ reports whether s hides the changes tc to the named type t (the old
// definition).
func (s *Suppressions) typ(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	if s == nil {
		return false
	}
	if s.privateType(tc.Name) {
		return true
	}
	x := s.matcher(&sc)
	keys := typeKeys(tc, t)
	for _, i := range x.cands(&x.typ, keys) {
		r := x.typ.rules[i]
		if x.try(func() bool { return r.matchType(tc, t, sc, size) }) {
			return true
		}
	}
	if !x.hasAllow || x.spent {
		return false
	}
	// An [allow_type] match the meter refuses counts as a match: the
	// change is reported.
	for _, i := range x.cands(&x.allow, keys) {
		r := x.allow.rules[i]
		if x.tryOr(true, func() bool { return r.matchType(tc, t, sc, size) }) {
			return false
		}
	}
	return true
}

// typeKeys are the strings a type change is known by to the rules.
func typeKeys(tc TypeChange, t *abi.Type) []string {
	if t != nil && t.Name != "" && t.Name != tc.Name {
		return []string{tc.Name, t.Name}
	}
	return []string{tc.Name}
}

// SuppressesFile reports whether a [suppress_file] section matches the
// input at path whose SONAME is soname: such an input is not compared.
func (s *Suppressions) SuppressesFile(path, soname string) bool {
	if s == nil {
		return false
	}
	for _, r := range s.rules {
		if r.section != secFile {
			continue
		}
		if r.fileRe == nil && r.fileNotRe == nil && r.sonameRe == nil && r.sonameNotRe == nil {
			continue
		}
		if r.inScope(scope{sonames: []string{soname}, files: []string{path}}) {
			return true
		}
	}
	return false
}

// paramsMatch applies the parameter properties to a function symbol. A
// C++ member function's implicit this is parameter 0 in libabigail's
// count, and DWARF lists it first, so the index is the position in the
// list either way.
func (r *rule) paramsMatch(sym abi.Symbol, m *meter) bool {
	t := sym.Type
	if t == nil || t.Kind != abi.Func {
		return false
	}
	for _, p := range r.params {
		if p.index >= len(t.Params) {
			return false
		}
		spelled := abi.Spell(t.Params[p.index])
		if p.re != nil && !m.match(p.re, spelled) && !m.match(p.re, paramSpelling(spelled)) ||
			p.re == nil && paramSpelling(p.name) != paramSpelling(spelled) {
			return false
		}
	}
	return true
}

// tagWords drops the C tags and the blanks before a declarator, so C's
// "struct S *" and C++'s "S*" (libabigail's spellings) are one.
var tagWords = strings.NewReplacer("struct ", "", "union ", "", "enum ", "", "class ", "", " *", "*", " &", "&")

func paramSpelling(s string) string { return tagWords.Replace(canonSpell(strings.TrimSpace(s))) }

// matchType is a rule's match of a type change where it was found; a rule
// with accessed_through depends on how the type is reached, and is applied
// by hideUnreached instead.
func (r *rule) matchType(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	if r.access != "" {
		return false
	}
	return r.matchTypeCore(tc, t, sc, size)
}

func (r *rule) matchTypeCore(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	key := tc.Name
	switch r.section {
	case ruleType:
		return sc.m.match(r.simple, key)
	case secType, secAllow:
	default:
		return false
	}
	// The matcher has applied the soname and file properties.
	if r.unknowable {
		return false
	}
	m := sc.m
	name := key
	if t != nil && t.Name != "" {
		name = t.Name
	}
	is := func(want string) bool { return want == key || want == name }
	match := func(re *rx) bool { return m.match(re, key) || m.match(re, name) }
	if r.name != "" && !is(r.name) || r.nameRe != nil && !match(r.nameRe) || r.nameNotRe != nil && match(r.nameNotRe) {
		return false
	}
	if r.typeKind != "" {
		if t == nil {
			return false
		}
		want := map[string]abi.Kind{"class": abi.Struct, "struct": abi.Struct, "union": abi.Union, "enum": abi.Enum,
			"array": abi.Array, "typedef": abi.Typedef, "builtin": abi.Base}[r.typeKind]
		// As libabigail: "class" is any struct or class, "struct" only
		// one declared with the struct key.
		if t.Kind != want || r.typeKind == "struct" && t.Class {
			return false
		}
	}
	if (len(r.members) > 0 || r.membersRe != nil) && !r.hasMembers(t, m) {
		return false
	}
	if r.hasRanges && !r.insertedOnly(tc, t, size, m) {
		return false
	}
	if len(r.enumerators) > 0 || r.enumeratorsRe != nil {
		// As libabigail: no enumerator removed, the same size, and
		// every enumerator whose value changed named; enumerators
		// added do not count.
		changed := false
		for _, c := range tc.Changes {
			switch c.Kind {
			case EnumeratorAdded:
				continue
			case EnumeratorValue:
			default:
				return false
			}
			e := c.Path[strings.LastIndexByte(c.Path, '.')+1:]
			if !slices.Contains(r.enumerators, e) && (r.enumeratorsRe == nil || !m.match(r.enumeratorsRe, e)) {
				return false
			}
			changed = true
		}
		if !changed {
			return false
		}
	}
	return true
}

// hasMembers applies has_data_member and has_data_member_regexp to the
// old type t: it has every member named, and one whose name matches. The
// members of its anonymous members count as its own, as in C.
func (r *rule) hasMembers(t *abi.Type, m *meter) bool {
	if t == nil || t.Kind != abi.Struct && t.Kind != abi.Union {
		return false
	}
	var names []string
	var collect func(ms []abi.Member, depth int)
	collect = func(ms []abi.Member, depth int) {
		for _, m := range ms {
			if m.Name == "" && m.Type != nil && depth < 64 {
				collect(m.Type.Members, depth+1)
				continue
			}
			names = append(names, m.Name)
		}
	}
	collect(t.Members, 0)
	collect(t.Statics, 0)
	for _, n := range r.members {
		if !slices.Contains(names, n) {
			return false
		}
	}
	return r.membersRe == nil || slices.ContainsFunc(names, func(n string) bool { return m.match(r.membersRe, n) })
}

// insertedOnly reports whether every change to the type is a data member
// inserted in one of the rule's ranges, or follows from one:
// the size growing, or a member at or past a range's start moving. As in
// libabigail, a type whose size changed matches only with has_size_change
// = yes, and a shrinking type never. A type with no change of its own (one
// on the way to a changed type) never matches.
func (r *rule) insertedOnly(tc TypeChange, t *abi.Type, size func(*abi.Type) int64, m *meter) bool {
	if t == nil {
		return false
	}
	if len(tc.Changes) == 0 {
		// No change of its own (a type on the way to a changed one):
		// libabigail's leaf reports still show what lies below, so a
		// range rule does not hide it.
		return false
	}
	type span struct{ lo, hi int64 }
	var spans []span
	for _, rg := range r.ranges {
		lo, ok1 := rg[0].eval(t, false, size, m)
		hi, ok2 := rg[1].eval(t, true, size, m)
		if ok1 && ok2 {
			spans = append(spans, span{lo, hi})
		}
	}
	in := func(bit int64, start bool) bool {
		for _, s := range spans {
			if bit >= s.lo && (start || bit <= s.hi) {
				return true
			}
		}
		return false
	}
	inserted := false
	for _, c := range tc.Changes {
		switch c.Kind {
		case MemberAdded:
			at, err := strconv.ParseInt(c.At, 10, 64)
			if err != nil || strings.Contains(c.Path, ".") || !in(at*8, false) {
				return false
			}
			inserted = true
		case MemberRemoved:
			// libabigail 2.3 lets deleted members in a range too (a
			// reserved member replaced by the inserted ones).
			o, ok := memberBit(t, c.Path)
			if !ok || !in(o, false) {
				return false
			}
		case Size:
			o, _ := strconv.ParseInt(c.Old, 10, 64)
			n, _ := strconv.ParseInt(c.New, 10, 64)
			if n < o || c.Path != "" || !r.sizeChange {
				return false
			}
		case Offset, BitOffset:
			o, _ := strconv.ParseInt(c.Old, 10, 64)
			if c.Kind == Offset {
				o *= 8
			}
			if !in(o, true) {
				return false
			}
		case MemberType:
			// A member in the range that changed type (a reserved
			// char[50] that became char[46] to make room): libabigail
			// checks only the inserted members against the ranges.
			o, ok := memberBit(t, c.Path)
			if !ok || !in(o, false) {
				return false
			}
		default:
			return false
		}
	}
	return inserted
}

// memberBit is the old bit offset of t's direct member name.
func memberBit(t *abi.Type, name string) (int64, bool) {
	for _, m := range t.Members {
		if m.Name == name && name != "" {
			if m.BitSize > 0 {
				return m.BitOffset, true
			}
			return m.Offset * 8, true
		}
	}
	return 0, false
}

// eval evaluates a boundary against the old type t; ok is false when it
// names a member t does not have. "end" is the type's end as a start, and
// no limit as an end.
func (b boundary) eval(t *abi.Type, isEnd bool, size func(*abi.Type) int64, mt *meter) (int64, bool) {
	switch {
	case b.end && isEnd:
		return math.MaxInt64, true
	case b.end:
		return t.Size * 8, true
	case b.re != nil:
		var off int64
		found := false
		for _, m := range t.Members {
			if m.Name != "" && mt.match(b.re, m.Name) && (b.last || !found) {
				off, found = m.Offset*8, true
				if m.BitSize > 0 {
					off = m.BitOffset
				}
			}
		}
		return off, found
	case b.member == "":
		return b.bits, true
	}
	for _, m := range t.Members {
		if m.Name != b.member {
			continue
		}
		off := m.Offset * 8
		if m.BitSize > 0 {
			off = m.BitOffset
		}
		if !b.after {
			return off, true
		}
		if m.BitSize > 0 {
			return off + m.BitSize, true
		}
		if n := size(m.Type); n >= 0 {
			return off + n*8, true
		}
		return 0, false
	}
	return 0, false
}
