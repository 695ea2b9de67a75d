package abidiff

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/internal/limits"
)

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
const maxRules = limits.SuppressionRules

// ParseSuppressions reads rules from r, in either format; name is used in
// errors.
func ParseSuppressions(name string, r io.Reader) (*Suppressions, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), limits.SuppressionLine)
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

var ruleWord = lazyre.New(`^[a-z_]+$`)

// looksSimple reports whether some line is, or is shaped like, a rule of
// abifloor's simple format: "symbol REGEX", "type REGEX", or any other
// two words (a misspelt rule, which is an error, not an ignored file).
func looksSimple(lines []string) bool {
	for _, t := range lines {
		if t == "" || t[0] == '#' {
			continue
		}
		kind, _, _ := strings.Cut(t, " ")
		if kind == ruleSymbol || kind == ruleType || len(strings.Fields(t)) == 2 && ruleWord().MatchString(kind) {
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
