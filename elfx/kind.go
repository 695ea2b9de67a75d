package elfx

import "debug/elf"

// Kind names what an ELF file is, in the words every abifloor command and
// JSON document uses.
type Kind string

const (
	// Executable is a position-dependent program with a program
	// interpreter (ET_EXEC with PT_INTERP or a dynamic section).
	Executable Kind = "executable"
	// PIEExecutable is a position-independent program with a program
	// interpreter (ET_DYN with PT_INTERP).
	PIEExecutable Kind = "pie-executable"
	// StaticExecutable is a position-dependent program with no dynamic
	// section: nothing is loaded or bound (a static Go program too).
	StaticExecutable Kind = "static-executable"
	// StaticPIE relocates itself and loads nothing (ET_DYN without
	// PT_INTERP, marked DF_1_PIE or without a dynamic section).
	StaticPIE Kind = "static-pie"
	// SharedLibrary is an ET_DYN file without PT_INTERP that is not a
	// static PIE. A library without DT_SONAME is usually a plugin.
	SharedLibrary Kind = "shared-library"
	// DebugInfo is a separate debug file (objcopy --only-keep-debug, the
	// files under /usr/lib/debug): the program headers of the program it
	// describes, with no loadable bytes behind them. It never runs.
	DebugInfo Kind = "debug-info"
	// Relocatable is an object file (ET_REL) for the linker.
	Relocatable Kind = "relocatable"
	// Core is a core dump.
	Core Kind = "core"
	// Other is any other ELF type.
	Other Kind = "other"
)

// Kind tells what f is from its header and program headers alone (no
// section header is read).
func (f *File) Kind() Kind {
	if f.debugOnly() {
		return DebugInfo
	}
	switch f.Type {
	case elf.ET_EXEC:
		if f.Interp == "" && f.Dynamic == nil {
			return StaticExecutable
		}
		return Executable
	case elf.ET_DYN:
		switch {
		case f.Interp != "":
			return PIEExecutable
		case f.Dynamic == nil || f.Dynamic.Flags1&elf.DF_1_PIE != 0:
			return StaticPIE
		}
		return SharedLibrary
	case elf.ET_REL:
		return Relocatable
	case elf.ET_CORE:
		return Core
	}
	return Other
}

// Static reports whether k is a program the kernel starts without the
// dynamic loader.
func (k Kind) Static() bool { return k == StaticExecutable || k == StaticPIE }

// Program reports whether k is something the loader maps: a program or a
// shared library.
func (k Kind) Program() bool {
	switch k {
	case Executable, PIEExecutable, StaticExecutable, StaticPIE, SharedLibrary:
		return true
	}
	return false
}

// debugOnly reports whether f is a separate debug file: strip keeps the
// program headers but drops the bytes of every allocated section (they
// become SHT_NOBITS), so an executable segment or the dynamic segment
// occupies memory but no file bytes. No file the loader can run looks
// like that.
func (f *File) debugOnly() bool {
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return false
	}
	for _, p := range f.Progs {
		empty := p.Filesz == 0 && p.Memsz > 0
		if empty && (p.Type == elf.PT_DYNAMIC || p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0) {
			return true
		}
	}
	return false
}
