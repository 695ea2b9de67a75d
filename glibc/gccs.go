package glibc

import (
	"context"
	"debug/elf"
	"fmt"
	"os"

	"path/filepath"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/elfx"
)

// The host's libgcc_s.so.1 was built against the host's glibc (GCC 12's
// needs _dl_find_object@GLIBC_2.35), so a link that names it (-lgcc_s: gcc
// for C++ and -fexceptions code, rustc always) fails against older stubs
// with "undefined reference to _dl_find_object@GLIBC_2.35". What a program
// takes from libgcc_s is its exports, and the target has its own
// libgcc_s.so.1. So the stubs hold a libgcc_s stub with the host's exports
// and no references: the link binds to the same versions (GCC_3.0, ...),
// and the proof checks them against a target's GCC limit.

// gccStub returns the stub of the compiler's libgcc_s.so.1, or ok false
// when the compiler has none.
func gccStub(ctx context.Context, comp *Compiler) (lib StubLib, ok bool, err error) {
	out, err := comp.Query(ctx, "-print-file-name=libgcc_s.so.1")
	if err != nil {
		return lib, false, nil
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		return lib, false, nil
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return lib, false, nil
	}
	f, err := elfx.Open(p)
	if err != nil {
		return lib, false, fmt.Errorf("glibc: %s: %w", p, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return lib, false, fmt.Errorf("glibc: %s: %w", p, err)
	}
	lib.Soname = "libgcc_s.so.1"
	versions := map[string]bool{}
	var data uint64 // the objects' sizes so far
	for _, s := range syms {
		if s.Undefined() || !s.Exported() || s.Version == "" {
			continue
		}
		if s.VersionNode() || s.Name == s.Version {
			versions[s.Version] = true // the version node's own symbol
			continue
		}
		if s.Type == elf.STT_NOTYPE || s.Type == elf.STT_SECTION || s.Type == elf.STT_FILE {
			continue
		}
		k := Func
		switch s.Type {
		case elf.STT_OBJECT, elf.STT_COMMON:
			k = Object
		case elf.STT_TLS:
			k = TLS
		}
		// The stub gives each object its storage: all of them together
		// cannot be larger than the library that holds them (libgcc_s's
		// are a few bytes), so a crafted size costs no more memory than
		// the file's own.
		if k != Func {
			if data += s.Size; s.Size > uint64(f.Size()) || data > uint64(f.Size()) {
				return lib, false, fmt.Errorf("glibc: %s: its objects' sizes (%s: %d bytes) are larger than the file", p, s.Name, s.Size)
			}
		}
		versions[s.Version] = true
		lib.Syms = append(lib.Syms, StubSym{Name: s.Name, Version: s.Version, Kind: k, Size: s.Size,
			Weak: s.Bind == elf.STB_WEAK, Default: s.Default})
	}
	for v := range versions {
		lib.Versions = append(lib.Versions, v)
	}
	sort.Strings(lib.Versions)
	return lib, len(lib.Syms) > 0, nil
}
