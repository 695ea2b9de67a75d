package diff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/internal/lazyre"
)

// maxHeaders bounds the header files one --headers-dir may bring in.
const maxHeaders = 4096

// publicTypes compiles every header under dirs (abidiff's --headers-dir)
// and returns the keys of the structs, unions and enums they define (a
// declaration alone is not a definition), for
// abidiff.Suppressions.WithPublicTypes. A C++ input (one with mangled symbols, see
// isCXX) is compiled with g++. When no header compiles on its own, the
// definitions are read from the headers' text and warning says so.
func publicTypes(ctx context.Context, dirs []string, a *abi.ABI) (types map[string]bool, warning string, err error) {
	var headers []string
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		// The compiler runs elsewhere: the headers are named in full.
		var err error
		if abs[i], err = filepath.Abs(d); err != nil {
			return nil, "", err
		}
	}
	dirs = abs
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".h", ".hh", ".hpp", ".hxx", ".h++":
				if e.Type().IsRegular() {
					headers = append(headers, p)
				}
			}
			if len(headers) > maxHeaders {
				return fmt.Errorf("%s: more than %d headers", d, maxHeaders)
			}
			return nil
		})
		if err != nil {
			return nil, "", err
		}
	}
	if len(headers) == 0 {
		return nil, "", fmt.Errorf("no header under %s", strings.Join(dirs, ", "))
	}
	cc := "cc"
	if isCXX(a) {
		cc = "g++"
	}
	out := map[string]bool{}
	add := func(a *abi.ABI) {
		for k, t := range a.Types {
			if (t.Kind == abi.Struct || t.Kind == abi.Union || t.Kind == abi.Enum) && !t.Incomplete && !(t.Kind == abi.Enum && t.Size == 0 && len(t.Enumerators) == 0) {
				out[k] = true
			}
		}
	}
	opt := abiread.HeaderOptions{Includes: dirs, Headers: headers, Types: []string{"*"}, CC: cc, Absent: true}
	res, err := abiread.CompileHeaders(ctx, opt)
	var conflict *abiread.ConflictError
	if errors.As(err, &conflict) && len(headers) > 1 && len(headers) <= maxApart {
		// Headers that do not compile together (two versions of one
		// header side by side) are read one by one, and what each
		// defines counts.
		budget := maxApart
		try := func(hs ...string) bool {
			if budget--; budget < 0 {
				return false
			}
			opt.Headers = hs
			r, err := abiread.CompileHeaders(ctx, opt)
			if err != nil || len(r.Absent.Headers) > 0 {
				return false
			}
			add(r.ABI)
			return true
		}
		var alone, failed []string
		for _, h := range headers {
			if try(h) {
				alone = append(alone, h)
			} else {
				failed = append(failed, h)
			}
		}
		// A header that needs another directory's first is read after
		// each one that compiles alone, until one pair compiles.
		for _, h := range failed {
			for _, g := range alone {
				if filepath.Dir(g) != filepath.Dir(h) && try(g, h) {
					break
				}
			}
		}
		if len(alone) == 0 {
			// Nothing compiles on its own: what the header text
			// defines counts.
			t, err := scanDefinitions(headers)
			return t, fmt.Sprintf("no header under %s compiles on its own: their definitions are read from their text", strings.Join(dirs, ", ")), err
		}
		return out, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	if len(res.Absent.Headers) > 0 {
		// A header not found would make every type it defines
		// private: refuse rather than guess.
		return nil, "", fmt.Errorf("headers not found: %s", strings.Join(res.Absent.Headers, ", "))
	}
	add(res.ABI)
	return out, "", nil
}

// maxApart bounds the compiles of headers read one by one.
const maxApart = 64

// definitionRe finds "struct NAME {" (union, enum, class) in header text.
var definitionRe = lazyre.New(`\b(struct|union|enum|class)\s+([A-Za-z_]\w*)\s*(?::[^{;]*)?\{`)

// scanDefinitions reads the struct, union and enum definitions of headers
// from their text, when no compile of them succeeds: a fallback that can
// miss a definition made by a macro (which then counts as private only if
// no other header defines it).
func scanDefinitions(headers []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, h := range headers {
		b, err := os.ReadFile(h)
		if err != nil {
			return nil, err
		}
		if len(b) > 16<<20 {
			return nil, fmt.Errorf("%s: header over 16 MB", h)
		}
		for _, m := range definitionRe().FindAllSubmatch(b, -1) {
			kind := string(m[1])
			if kind == "class" {
				kind = "struct"
			}
			out[kind+" "+string(m[2])] = true
		}
	}
	return out, nil
}

// isCXX reports whether a has a mangled (C++) symbol.
func isCXX(a *abi.ABI) bool {
	for _, s := range a.Symbols {
		if s.Demangled != "" {
			return true
		}
	}
	return false
}
