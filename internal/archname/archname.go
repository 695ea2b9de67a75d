// Package archname is the one vocabulary of architecture names: the names
// elfx.File.Arch gives (x86_64, aarch64, i386, ppc64le, ...), the aliases
// users and tools write for them (amd64, arm64, i686, armhf, ppc64el),
// and their GNU target triples. It is a table and the standard library,
// so that a package that only names architectures (targets) does not pull
// the ELF reader; elfx reads names through it.
package archname

import (
	"runtime"
	"strings"
)

// triples maps Arch names to GNU target triples as Debian names its
// cross compilers (arm-linux-gnueabihf-gcc). 32-bit arm is taken to be
// the hard-float ABI, the one every current distribution ships.
var triples = map[string]string{
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

// aliases maps the other names users and tools give an architecture
// (Go's and Debian's amd64 and arm64, i686, armhf, ppc64el, ...) to Arch's.
var aliases = map[string]string{
	"amd64": "x86_64", "x86-64": "x86_64", "x64": "x86_64",
	"arm64": "aarch64",
	"386":   "i386", "i486": "i386", "i586": "i386", "i686": "i386", "x86": "i386", "ia32": "i386",
	"armhf": "arm", "armel": "arm", "armv7": "arm", "armv7l": "arm", "armv7hl": "arm",
	"ppc64el": "ppc64le", "powerpc64le": "ppc64le", "powerpc64": "ppc64", "powerpc": "ppc",
	"loong64": "loongarch64", "mips64le": "mips64el", "mipsle": "mipsel",
}

// Parse reads an architecture name as a user may write it (x86_64,
// amd64, aarch64, arm64, i686, i386, armhf, ppc64el, ...), case-insensitively,
// and returns the name Arch uses. ok is false for a name it does not know.
func Parse(s string) (arch string, ok bool) {
	s = strings.ToLower(s)
	if a, found := aliases[s]; found {
		return a, true
	}
	if _, found := triples[s]; found {
		return s, true
	}
	return "", false
}

// Triple is the GNU target triple of an architecture named as Arch names
// it, or "" when it has no Linux GNU toolchain name here.
func Triple(arch string) string { return triples[arch] }

// Host is the architecture of the running program, as Arch names it.
func Host() string {
	if a, ok := Parse(runtime.GOARCH); ok {
		return a
	}
	return runtime.GOARCH
}
