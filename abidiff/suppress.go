package abidiff

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/abifloor/abifloor/abi"
)

// Suppressions hide changes to symbols and types whose names match. The
// file format is one rule per line: "symbol REGEX" or "type REGEX"; blank
// lines and lines starting with # are ignored. A symbol regex is matched
// against the bare name and against name@VERSION / name@@VERSION; a type
// regex against the type's key ("struct foo", "foo_t").
type Suppressions struct {
	symbols, types []*regexp.Regexp
}

// ParseSuppressions reads rules from r; name is used in errors.
func ParseSuppressions(name string, r io.Reader) (*Suppressions, error) {
	s := &Suppressions{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		kind, expr, _ := strings.Cut(t, " ")
		expr = strings.TrimSpace(expr)
		if expr == "" {
			return nil, fmt.Errorf("%s:%d: want \"symbol REGEX\" or \"type REGEX\"", name, line)
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		switch kind {
		case "symbol":
			s.symbols = append(s.symbols, re)
		case "type":
			s.types = append(s.types, re)
		default:
			return nil, fmt.Errorf("%s:%d: unknown rule %q (want symbol or type)", name, line, kind)
		}
	}
	return s, sc.Err()
}

func (s *Suppressions) symbol(sym abi.Symbol) bool {
	if s == nil {
		return false
	}
	for _, re := range s.symbols {
		if re.MatchString(sym.Name) || re.MatchString(sym.String()) {
			return true
		}
	}
	return false
}

func (s *Suppressions) typ(key string) bool {
	if s == nil {
		return false
	}
	for _, re := range s.types {
		if re.MatchString(key) {
			return true
		}
	}
	return false
}
