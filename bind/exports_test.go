package bind

import (
	"context"
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/elfx"
)

// TestExportsAgree is issue 9's "abi dump and bind agree on
// exported symbols", on every shared library of the system: what bind
// indexes as a library's definitions is exactly what elfx's
// Symbol.Exported (the loader's rule) accepts, and what abi lists is the
// same less the VersionNode symbols (GLIBC_2.34@@GLIBC_2.34, which the
// loader binds to and an ABI does not list). The libraries are also read
// with debug/elf, so elfx's reading of the table is checked against the
// standard library's.
func TestExportsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every shared library of the system; skipped with -short")
	}
	dir := "/usr/lib/" + elfx.Multiarch(hostMachine())
	paths, _ := filepath.Glob(filepath.Join(dir, "*.so*"))
	checked := 0
	for _, p := range paths {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			continue // each library once, under its real name
		}
		f, err := elfx.Open(p)
		if err != nil {
			continue // linker scripts (libc.so) and the like
		}
		kind := f.Kind()
		syms, symErr := f.Symbols()
		f.Close()
		if kind != elfx.SharedLibrary || symErr != nil {
			continue
		}
		o, err := openObject(p)
		if err != nil {
			t.Errorf("%s: bind: %v", p, err)
			continue
		}
		var fromBind, exported, nodes []string
		o.eachDef(func(name, version string) { fromBind = append(fromBind, name+"@"+version) })
		for _, s := range syms {
			if s.Exported() {
				exported = append(exported, s.Name+"@"+s.Version)
				if s.VersionNode() {
					nodes = append(nodes, s.Name+"@"+s.Version)
				}
			}
		}
		slices.Sort(fromBind)
		slices.Sort(exported)
		if !slices.Equal(fromBind, exported) {
			t.Errorf("%s: bind indexes %d definitions, elfx exports %d", p, len(fromBind), len(exported))
		}
		a, err := abiread.Load(context.Background(), p, abiread.Options{NoDefaultDebugDir: true})
		if err != nil {
			t.Errorf("%s: abi: %v", p, err)
			continue
		}
		var fromABI []string
		for _, s := range a.Symbols {
			fromABI = append(fromABI, s.Name+"@"+s.Version)
		}
		slices.Sort(fromABI)
		if want := slices.DeleteFunc(slices.Clone(fromBind), func(d string) bool { return slices.Contains(nodes, d) }); !slices.Equal(fromABI, want) {
			t.Errorf("%s: abi lists %d symbols, bind %d definitions of which %d version nodes", p, len(fromABI), len(fromBind), len(nodes))
		}
		checkAgainstStd(t, p, syms)
		checked++
	}
	if checked < 20 {
		t.Skipf("only %d shared libraries under %s", checked, dir)
	}
	t.Logf("%d libraries under %s agree", checked, dir)
}

// checkAgainstStd compares elfx's dynamic symbols with debug/elf's.
func checkAgainstStd(t *testing.T, p string, syms []elfx.Symbol) {
	t.Helper()
	ef, err := elf.Open(p)
	if err != nil {
		t.Errorf("%s: debug/elf: %v", p, err)
		return
	}
	defer ef.Close()
	std, err := ef.DynamicSymbols()
	if errors.Is(err, elf.ErrNoSymbols) {
		std = nil
	} else if err != nil {
		t.Errorf("%s: debug/elf: %v", p, err)
		return
	}
	if len(std) != len(syms)-1 { // debug/elf leaves out the null symbol
		t.Errorf("%s: debug/elf reads %d dynamic symbols, elfx %d", p, len(std), len(syms)-1)
		return
	}
	for i, s := range std {
		e := syms[i+1]
		if s.Name != e.Name || s.Value != e.Value || s.Section != e.Section || elf.ST_BIND(s.Info) != e.Bind ||
			elf.ST_TYPE(s.Info) != e.Type || s.Version != e.Version {
			t.Errorf("%s: symbol %d: debug/elf %s@%s, elfx %s", p, i+1, s.Name, s.Version, e)
			return
		}
	}
}

// hostMachine is the ELF machine, class and byte order of this process.
func hostMachine() (elf.Machine, elf.Class, elf.Data) {
	switch runtime.GOARCH {
	case "arm64":
		return elf.EM_AARCH64, elf.ELFCLASS64, elf.ELFDATA2LSB
	case "386":
		return elf.EM_386, elf.ELFCLASS32, elf.ELFDATA2LSB
	}
	return elf.EM_X86_64, elf.ELFCLASS64, elf.ELFDATA2LSB
}
