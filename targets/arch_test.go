package targets

import (
	"testing"

	"github.com/abifloor/abifloor/elfx"
)

// TestPolicyArchAliases: one vocabulary (elfx's); every name a user types
// reaches auditwheel's name, and an elfx.Arch name too.
func TestPolicyArchAliases(t *testing.T) {
	for in, want := range map[string]string{
		"x86_64": "x86_64", "amd64": "x86_64", "x86-64": "x86_64", "X86_64": "x86_64",
		"aarch64": "aarch64", "arm64": "aarch64",
		"i386": "i686", "i686": "i686", "386": "i686", "x86": "i686",
		"arm": "armv7l", "armhf": "armv7l", "armv7l": "armv7l",
		"ppc64el": "ppc64le", "ppc64le": "ppc64le", "s390x": "s390x", "loong64": "loongarch64",
		"riscv64": "riscv64",
	} {
		if got := PolicyArch(in); got != want {
			t.Errorf("PolicyArch(%q) = %q, want %q", in, got, want)
		}
		if a, ok := elfx.ParseArch(in); !ok || PolicyArch(a) != want {
			t.Errorf("elfx.ParseArch(%q) = %q, %v: not the same architecture", in, a, ok)
		}
	}
}
