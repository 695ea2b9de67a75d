package elfx

import "debug/elf"

// Arch names the file's architecture the way Debian and uname do
// (x86_64, aarch64, i386, ppc64le, s390x, riscv64, ...).
func (f *File) Arch() string { return ArchName(f.Machine, f.Class, f.Data) }

// ArchName names a machine, class and byte order as Arch does, for callers
// holding a debug/elf File.
func ArchName(m elf.Machine, class elf.Class, data elf.Data) string {
	le := data == elf.ELFDATA2LSB
	switch m {
	case elf.EM_X86_64:
		if class == elf.ELFCLASS32 {
			return "x32"
		}
		return "x86_64"
	case elf.EM_386:
		return "i386"
	case elf.EM_AARCH64:
		if !le {
			return "aarch64_be"
		}
		return "aarch64"
	case elf.EM_ARM:
		if !le {
			return "armeb"
		}
		return "arm"
	case elf.EM_PPC64:
		if le {
			return "ppc64le"
		}
		return "ppc64"
	case elf.EM_PPC:
		return "ppc"
	case elf.EM_S390:
		if class == elf.ELFCLASS64 {
			return "s390x"
		}
		return "s390"
	case elf.EM_RISCV:
		if class == elf.ELFCLASS64 {
			return "riscv64"
		}
		return "riscv32"
	case elf.EM_MIPS:
		s := "mips"
		if class == elf.ELFCLASS64 {
			s = "mips64"
		}
		if le {
			s += "el"
		}
		return s
	case elf.EM_LOONGARCH:
		return "loongarch64"
	case elf.EM_SPARCV9:
		return "sparc64"
	}
	return m.String()
}
