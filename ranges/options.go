package ranges

import (
	"fmt"
	"path"
	"strings"

	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/ranges/table"
)

// Options are the header options of a build (table.Options): what abi
// headers compiles and keeps for each version.
type Options table.Options

// defineForm is NAME, NAME=VALUE or NAME(ARGS)=VALUE, as -D takes it.
var defineForm = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*(\([A-Za-z0-9_, .]*\))?(=.*)?$`)

// Check refuses options that would reach outside each version's tree or
// past the compiler's command line: an include directory or header that
// is absolute, climbs with "..", or holds a control character (a newline
// in a header's name would start a directive of its own), and a define
// that is not NAME[=VALUE]. Options come from a table or a surface file
// as often as from the command line, and a data file chooses nothing
// outside the tree.
func (o Options) Check() error {
	for _, l := range []struct {
		name string
		v    []string
	}{{"include directory", o.Includes}, {"header", o.Headers}} {
		for _, v := range l.v {
			if err := treePath(v); err != nil {
				return fmt.Errorf("%s %q: %v", l.name, v, err)
			}
		}
	}
	for _, d := range o.Defines {
		if !defineForm().MatchString(d) || hasControl(d) {
			return fmt.Errorf("define %q: not NAME or NAME=VALUE", d)
		}
	}
	return nil
}

// treePath refuses a path that is not a plain relative path inside a
// tree.
func treePath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty")
	case hasControl(p):
		return fmt.Errorf("holds a control character")
	case path.IsAbs(p) || strings.HasPrefix(p, `\`):
		return fmt.Errorf("absolute; it must be relative to each version's tree")
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return fmt.Errorf(`climbs with ".."; it must stay inside each version's tree`)
		}
	}
	return nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
