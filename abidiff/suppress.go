package abidiff

import (
	"github.com/abifloor/abifloor/abi"
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
