package glibc

import (
	"debug/elf"
	"fmt"
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
// version, GLIBC_PRIVATE and unversioned symbols aside, and the GLIBC_x.y
// version nodes the library defines. It fails when the file is not of arch.
func ReadLibrary(path, arch string) (versions []string, exports []Export, err error) {
	f, err := elfx.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if f.Arch() != arch {
		return nil, nil, fmt.Errorf("%s: is %s, not %s", path, f.Arch(), arch)
	}
	vds, err := f.VersionDefs()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, vd := range vds {
		if isGLIBC(vd.Name) && !vd.Base() {
			versions = append(versions, vd.Name)
		}
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
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
			return nil, nil, fmt.Errorf("%s: symbol name %q cannot be stubbed", path, e.Name)
		}
		exports = append(exports, e)
	}
	return versions, exports, nil
}

// isGLIBC reports whether v is a public glibc version, GLIBC_2.2.5: not
// GLIBC_PRIVATE, not another namespace.
func isGLIBC(v string) bool {
	ns, _, ok := symver.Split(v)
	return ok && ns == "GLIBC"
}
