package elfx

import (
	"debug/elf"
	"runtime"
	"strings"
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

// archAliases maps the other names users and tools give an architecture
// (Go's and Debian's amd64 and arm64, i686, armhf, ppc64el, ...) to Arch's.
var archAliases = map[string]string{
	"amd64": "x86_64", "x86-64": "x86_64", "x64": "x86_64",
	"arm64": "aarch64",
	"386":   "i386", "i486": "i386", "i586": "i386", "i686": "i386", "x86": "i386", "ia32": "i386",
	"armhf": "arm", "armel": "arm", "armv7": "arm", "armv7l": "arm", "armv7hl": "arm",
	"ppc64el": "ppc64le", "powerpc64le": "ppc64le", "powerpc64": "ppc64", "powerpc": "ppc",
	"loong64": "loongarch64", "mips64le": "mips64el", "mipsle": "mipsel",
}

// ParseArch reads an architecture name as a user may write it (x86_64,
// amd64, aarch64, arm64, i686, i386, armhf, ppc64el, ...), case-insensitively,
// and returns the name Arch uses. ok is false for a name it does not know.
func ParseArch(s string) (arch string, ok bool) {
	s = strings.ToLower(s)
	if a, found := archAliases[s]; found {
		return a, true
	}
	if _, found := gnuTriples[s]; found {
		return s, true
	}
	return "", false
}

// ArchTriple is Triple for an architecture named as Arch names it, or ""
// when it has no Linux GNU toolchain name here.
func ArchTriple(arch string) string { return gnuTriples[arch] }

// HostArch is the architecture of the running program, as Arch names it.
func HostArch() string {
	if a, ok := ParseArch(runtime.GOARCH); ok {
		return a
	}
	return runtime.GOARCH
}
