package glibc

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/symver"
)

// Export is one versioned definition a real glibc library exports, as the
// dynamic loader sees it.
type Export struct {
	Name    string
	Version string // GLIBC_2.2.5
	Default bool   // name@@VERSION: the version new links bind to
	Kind    Kind
	Size    uint64
	Weak    bool
	Value   uint64 // address: data symbols at one address are aliases
}

// ReadLibrary reads what the glibc library at path exports: every
// definition the loader binds to (elfx.Symbol.Exported) in a GLIBC_x.y
// version, GLIBC_PRIVATE and unversioned symbols aside. It fails when the
// file is not of arch.
func ReadLibrary(path, arch string) ([]Export, error) {
	f, err := elfx.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Arch() != arch {
		return nil, fmt.Errorf("%s: is %s, not %s", path, f.Arch(), arch)
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var exports []Export
	for _, s := range syms {
		if !s.Exported() || s.VersionNode() || !isGLIBC(s.Version) {
			continue
		}
		e := Export{Name: s.Name, Version: s.Version, Default: s.Default, Size: s.Size,
			Weak: s.Bind == elf.STB_WEAK, Value: s.Value}
		switch s.Type {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			e.Kind = Func
		case elf.STT_TLS:
			e.Kind = TLS
		default:
			e.Kind = Object
		}
		if strings.ContainsAny(e.Name, " \t\n\"\\,;:") {
			return nil, fmt.Errorf("%s: symbol name %q cannot be stubbed", path, e.Name)
		}
		exports = append(exports, e)
	}
	return exports, nil
}

// isGLIBC reports whether v is a public glibc version, GLIBC_2.2.5: not
// GLIBC_PRIVATE, not another namespace.
func isGLIBC(v string) bool {
	ns, _, ok := symver.Split(v)
	return ok && ns == "GLIBC"
}

// LibcRelease reads which glibc release the libc.so.6 at path is, from the
// banner it prints ("GNU C Library (Debian GLIBC 2.36-9) stable release
// version 2.36."): 2.36.
func LibcRelease(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	const marker = "release version "
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		return "", fmt.Errorf("%s: no glibc release banner", path)
	}
	s := b[i+len(marker):]
	end := bytes.IndexFunc(s, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if end < 0 {
		end = len(s)
	}
	v := strings.TrimSuffix(string(s[:end]), ".")
	if _, _, ok := symver.Split("GLIBC_" + v); !ok {
		return "", fmt.Errorf("%s: banner names no release: %q", path, v)
	}
	return v, nil
}
