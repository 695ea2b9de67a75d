package elfx

import "debug/elf"

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

// gnuTriples maps Arch names to GNU target triples as Debian names its
// cross compilers (arm-linux-gnueabihf-gcc). 32-bit arm is taken to be
// the hard-float ABI, the one every current distribution ships.
var gnuTriples = map[string]string{
	"x86_64":      "x86_64-linux-gnu",
	"x32":         "x86_64-linux-gnux32",
	"i386":        "i686-linux-gnu",
	"aarch64":     "aarch64-linux-gnu",
	"aarch64_be":  "aarch64_be-linux-gnu",
	"arm":         "arm-linux-gnueabihf",
	"armeb":       "armeb-linux-gnueabihf",
	"ppc64le":     "powerpc64le-linux-gnu",
	"ppc64":       "powerpc64-linux-gnu",
	"ppc":         "powerpc-linux-gnu",
	"s390x":       "s390x-linux-gnu",
	"s390":        "s390-linux-gnu",
	"riscv64":     "riscv64-linux-gnu",
	"riscv32":     "riscv32-linux-gnu",
	"mips":        "mips-linux-gnu",
	"mipsel":      "mipsel-linux-gnu",
	"mips64":      "mips64-linux-gnuabi64",
	"mips64el":    "mips64el-linux-gnuabi64",
	"loongarch64": "loongarch64-linux-gnu",
	"sparc64":     "sparc64-linux-gnu",
}

// Triple is the GNU target triple of a machine, class and byte order: the
// prefix of its cross compiler and binutils (x86_64-linux-gnu,
// aarch64-linux-gnu, arm-linux-gnueabihf, i686-linux-gnu,
// powerpc64le-linux-gnu, s390x-linux-gnu, riscv64-linux-gnu), or "" for a
// machine without a Linux GNU toolchain name here.
func Triple(m elf.Machine, class elf.Class, data elf.Data) string {
	return gnuTriples[archName(m, class, data)]
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
