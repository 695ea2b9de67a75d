package floor

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// An artefact says where it will run, and check holds its binaries to it:
//
//   - a wheel's platform tags (manylinux_2_17_x86_64, from its file name)
//     are targets, checked like --target with the policy's rules;
//   - a .deb's Depends: libc6 (>= X) and an rpm's highest
//     Requires: libc.so.6(GLIBC_X) are GLIBC limits: a binary needing more
//     crashes on a system the package manager thinks is enough;
//   - an npm package's "cpu" and "libc" (package.json) must match each
//     binary's architecture and C library.
//
// A broken claim is a violation with Rule RuleClaim whose Target quotes
// the claim.

// RuleClaim marks a violation of what the artefact itself claims.
const RuleClaim = "claim"

// claims is what an artefact says of itself.
type claims struct {
	control string            // .deb control file or rpm Requires
	pkgJSON []byte            // npm package.json
	limits  map[string]string // GLIBC limit from the control, and its source
	source  string
	targets []targets.Target // wheel tags
	npm     *npmClaim
}

type npmClaim struct {
	CPU  []string `json:"cpu"`
	Libc []string `json:"libc"`
}

// wantClaim says which non-ELF members carry a claim.
func wantClaim(name string) bool {
	return name == "/package/package.json"
}

var (
	debLibc = regexp.MustCompile(`(?m)^(?:Pre-)?Depends:.*?\blibc6(?:\.1)?\s*\(>=\s*(?:\d+:)?([0-9][0-9.]*)`)
	rpmLibc = regexp.MustCompile(`(?m)^libc\.so\.6\(GLIBC_([0-9][0-9.]*)\)`)
	wheelRE = regexp.MustCompile(`^[^-]+-[^-]+(?:-[^-]+)?-[^-]+-[^-]+-([^-]+)\.whl$`)
)

// resolve turns what was read into limits and targets.
func (c *claims) resolve(artefactPath string) {
	if m := debLibc.FindStringSubmatch(c.control); m != nil {
		c.limits = map[string]string{"GLIBC": m[1]}
		c.source = fmt.Sprintf("Depends: libc6 (>= %s)", m[1])
	} else if ms := rpmLibc.FindAllStringSubmatch(c.control, -1); ms != nil {
		top := ""
		for _, m := range ms {
			if top == "" || symver.Compare(m[1], top) > 0 {
				top = m[1]
			}
		}
		c.limits = map[string]string{"GLIBC": top}
		c.source = fmt.Sprintf("Requires: libc.so.6(GLIBC_%s)", top)
	}
	c.targets = nil
	if m := wheelRE.FindStringSubmatch(path.Base(artefactPath)); m != nil {
		for _, tag := range strings.Split(m[1], ".") {
			// The whole tag names a policy of one architecture
			// (targets.Lookup), so a binary of another breaks it too.
			if t, err := targets.Lookup(tag); err == nil && t.IsPolicy() {
				c.targets = append(c.targets, t)
			}
		}
	}
	if c.pkgJSON != nil {
		var n npmClaim
		if json.Unmarshal(c.pkgJSON, &n) == nil && (len(n.CPU) > 0 || len(n.Libc) > 0) {
			c.npm = &n
		}
	}
}

// npmCPU is npm's name of an ELF architecture.
var npmCPU = map[string]string{"x86_64": "x64", "aarch64": "arm64", "i386": "ia32", "arm": "arm", "ppc64le": "ppc64", "ppc64": "ppc64", "s390x": "s390x", "riscv64": "riscv64", "loongarch64": "loong64", "mips64el": "mips64el"}

// violations checks one member's report against the claims.
func (c *claims) violations(rep FileReport) []Violation {
	var out []Violation
	for ns, allowed := range c.limits {
		if req, ok := rep.Floors[ns]; ok && symver.Compare(req, allowed) > 0 {
			out = append(out, Violation{Path: rep.Path, Namespace: ns, Required: req, Allowed: allowed, Symbols: whyOf(rep, ns), Rule: RuleClaim, Target: c.source})
		}
	}
	if c.npm != nil {
		if cpu, ok := npmCPU[rep.Arch]; ok && len(c.npm.CPU) > 0 && !allows(c.npm.CPU, cpu) {
			out = append(out, Violation{Path: rep.Path, Symbols: []string{}, Rule: RuleClaim, Target: fmt.Sprintf("package.json cpu %v: the file is %s (%s)", c.npm.CPU, cpu, rep.Arch)})
		}
		if rep.Libc != "" && len(c.npm.Libc) > 0 && !allows(c.npm.Libc, rep.Libc) {
			out = append(out, Violation{Path: rep.Path, Symbols: []string{}, Rule: RuleClaim, Target: fmt.Sprintf("package.json libc %v: the file is linked against %s", c.npm.Libc, rep.Libc)})
		}
	}
	return out
}

// allows applies npm's list semantics: names, or "!name" exclusions.
func allows(list []string, v string) bool {
	if slices.Contains(list, "!"+v) {
		return false
	}
	for _, x := range list {
		if !strings.HasPrefix(x, "!") {
			return slices.Contains(list, v)
		}
	}
	return true
}

func whyOf(rep FileReport, ns string) []string {
	if s := rep.Why[ns]; s != nil {
		return s
	}
	return []string{}
}
