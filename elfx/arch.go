package elfx

import (
	"debug/elf"

	"github.com/abifloor/abifloor/internal/archname"
)

// Arch names the file's architecture the way Debian and uname do
// (x86_64, aarch64, i386, ppc64le, s390x, riscv64, ...).
func (f *File) Arch() string { return archName(f.Machine, f.Class, f.Data) }

// archName names a machine, class and byte order as Arch does.
func archName(m elf.Machine, class elf.Class, data elf.Data) string {
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

// Triple is the GNU target triple of a machine, class and byte order: the
// prefix of its cross compiler and binutils (x86_64-linux-gnu,
// aarch64-linux-gnu, arm-linux-gnueabihf, i686-linux-gnu,
// powerpc64le-linux-gnu, s390x-linux-gnu, riscv64-linux-gnu), or "" for a
// machine without a Linux GNU toolchain name here.
func Triple(m elf.Machine, class elf.Class, data elf.Data) string {
	return archname.Triple(archName(m, class, data))
}

// Multiarch is the Debian multiarch name of a machine, class and byte
// order: the directory its libraries live in (/usr/lib/<Multiarch>). It
// is the Triple, except on 32-bit x86, whose libraries live in
// i386-linux-gnu while its compiler is i686-linux-gnu-gcc.
func Multiarch(m elf.Machine, class elf.Class, data elf.Data) string {
	if m == elf.EM_386 {
		return "i386-linux-gnu"
	}
	return Triple(m, class, data)
}

// ParseArch reads an architecture name as a user may write it (x86_64,
// amd64, aarch64, arm64, i686, i386, armhf, ppc64el, ...), case-insensitively,
// and returns the name Arch uses. ok is false for a name it does not know.
// The table is internal/archname's, which packages that only name
// architectures use without this reader.
func ParseArch(s string) (arch string, ok bool) { return archname.Parse(s) }

// ArchTriple is Triple for an architecture named as Arch names it, or ""
// when it has no Linux GNU toolchain name here.
func ArchTriple(arch string) string { return archname.Triple(arch) }

// HostArch is the architecture of the running program, as Arch names it.
func HostArch() string { return archname.Host() }
