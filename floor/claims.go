package floor

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// An artefact says where it will run, and check holds its binaries to it:
//
//   - a wheel's platform tags (manylinux_2_17_x86_64, from its file name)
//     are targets, checked like --target with the policy's rules, beside
//     (never instead of) the targets the caller names;
//   - a .deb's libc relations in Depends and Pre-Depends (libc6, libc6.1,
//     libc0.1, the multilib libc6-i386, libc6-amd64, ... and the cross
//     libc6-arm64-cross, libc6-s390x-cross, ... for files of that
//     architecture) give a GLIBC limit: the lowest glibc the relation
//     lets the package manager install with (>= X, >> X and = X allow X's
//     upstream release; << and <= and an unversioned libc6 set no lower
//     bound, so no GLIBC version is claimed at all); an rpm's highest
//     Requires: libc.so.6(GLIBC_X) is a GLIBC limit;
//   - an npm package's "cpu" and "libc" (package.json) must match each
//     binary's architecture and C library.
//
// A broken claim is a violation with Rule RuleClaim whose Target quotes
// the claim; Result.Claims says of each claim whether it held.

// RuleClaim marks a violation of what the artefact itself claims.
const RuleClaim = "claim"

// ClaimCheck is one claim of an artefact and whether its files kept it.
type ClaimCheck struct {
	Artefact string `json:"artefact"`
	Claim    string `json:"claim"`
	// Files counts the ELF members held to the claim.
	Files int  `json:"files"`
	Held  bool `json:"held"`
}

// claims is what an artefact says of itself.
type claims struct {
	control string // .deb control file or rpm Requires
	pkgJSON []byte // npm package.json
	libc    []libcClaim
	rt      []rtClaim        // the GCC runtimes' (runtime.go)
	targets []targets.Target // wheel tags
	npm     *npmClaim
}

// libcClaim is the GLIBC limit a package's libc relations set for its
// files of one architecture.
type libcClaim struct {
	arch    string // "" for every file no multilib relation names
	version string // "" when the relations set no lower bound
	source  string // the relation, quoted
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
	debField  = lazyre.New(`(?m)^((?:Pre-)?Depends):([^\n]*(?:\n[ \t][^\n]*)*)`)
	debRel    = lazyre.New(`^([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9-]+)?\s*(?:\(\s*(>=|>>|<=|<<|=|>|<)\s*([^)\s]+)\s*\))?`)
	debLibcRE = lazyre.New(`^libc(?:6|6\.1|0\.1|0\.3)(?:-([a-z0-9]+))?(-cross)?$`)
	rpmLibc   = lazyre.New(`(?m)^libc\.so\.6\(GLIBC_([0-9][0-9.]*)\)`)
	wheelRE   = lazyre.New(`^[^-]+-[^-]+(?:-[^-]+)?-[^-]+-[^-]+-([^-]+)\.whl$`)
	upstream  = lazyre.New(`^[0-9]+(?:\.[0-9]+)*`)
)

// multilib maps the architecture suffix of a multilib libc package
// (libc6-i386) to the ELF architecture of the files it serves.
var multilib = map[string]string{"i386": "i386", "amd64": "x86_64", "x32": "x86_64", "s390": "s390", "ppc64": "ppc64",
	"armel": "arm", "armhf": "arm", "sparc64": "sparc64", "mips64": "mips64", "mipsn32": "mips", "mips32": "mips"}

// debLibcClaims reads the libc relations of a .deb's control file. Of
// alternatives (a | b) the lowest bound holds; of several relations the
// highest.
func debLibcClaims(control string) []libcClaim {
	var all []libcClaim
	for _, f := range debField().FindAllStringSubmatch(control, -1) {
		for _, group := range strings.Split(f[2], ",") {
			if c, ok := libcGroup(f[1], group); ok {
				all = append(all, c)
			}
		}
	}
	return strongest(all)
}

// bounded is a claim with a key (what it limits) and a lower bound.
type bounded interface{ bound() (key, version string) }

func (c libcClaim) bound() (string, string) { return c.arch, c.version }
func (c rtClaim) bound() (string, string)   { return c.ns, c.version }

// strongest keeps, of several relations on one key, the one with the
// highest lower bound (any bound beats none), keys in first-seen order;
// nil when cs is empty.
func strongest[C bounded](cs []C) []C {
	at := map[string]int{}
	var out []C
	for _, c := range cs {
		k, v := c.bound()
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, c)
			continue
		}
		if _, cur := out[i].bound(); v != "" && (cur == "" || symver.Compare(v, cur) > 0) {
			out[i] = c
		}
	}
	return out
}

// debBound is the lower bound a .deb relation's operator and version
// set, "" for none. A Debian version is [epoch:]upstream[-revision];
// 2.36-9 satisfies >> 2.36, so the bound is the upstream release.
func debBound(op, version string) string {
	switch op {
	case ">=", ">>", "=", ">":
		if _, rest, ok := strings.Cut(version, ":"); ok {
			version = rest
		}
		return upstream().FindString(version)
	}
	return ""
}

// libcGroup reads one group of alternatives; ok when every alternative
// is a libc of one architecture.
func libcGroup(field, group string) (c libcClaim, ok bool) {
	group = strings.Join(strings.Fields(group), " ")
	c.source = field + ": " + group
	for i, alt := range strings.Split(group, "|") {
		m := debRel().FindStringSubmatch(strings.TrimSpace(alt))
		if m == nil {
			return c, false
		}
		lm := debLibcRE().FindStringSubmatch(m[1])
		if lm == nil {
			return c, false
		}
		arch := ""
		if lm[2] != "" {
			// A cross toolchain's libc (libc6-arm64-cross, named by
			// Debian architecture) serves that architecture's files.
			if arch, _ = elfx.ParseArch(lm[1]); arch == "" {
				return c, false
			}
		} else if lm[1] != "" {
			if arch = multilib[lm[1]]; arch == "" {
				return c, false // libc6-dev, libc6-dbg: not the runtime
			}
		}
		low := debBound(m[2], m[3])
		if i == 0 {
			c.arch, c.version = arch, low
		} else if c.arch != arch {
			return c, false
		} else if low == "" || (c.version != "" && symver.Compare(low, c.version) < 0) {
			c.version = low
		}
	}
	return c, true
}

// resolve turns what was read into limits and targets; user are the
// targets the caller named (a tag among them is not claimed twice).
func (c *claims) resolve(artefactPath string, user []targets.Target) {
	c.libc = debLibcClaims(c.control)
	if c.libc == nil {
		if ms := rpmLibc().FindAllStringSubmatch(c.control, -1); ms != nil {
			top := ""
			for _, m := range ms {
				if top == "" || symver.Compare(m[1], top) > 0 {
					top = m[1]
				}
			}
			c.libc = []libcClaim{{version: top, source: fmt.Sprintf("Requires: libc.so.6(GLIBC_%s)", top)}}
		}
	}
	c.rt = runtimeClaims(c.control)
	c.targets = nil
	if m := wheelRE().FindStringSubmatch(path.Base(artefactPath)); m != nil {
		for _, tag := range strings.Split(m[1], ".") {
			// The whole tag names a policy of one architecture
			// (targets.Lookup), so a binary of another breaks it too.
			// manylinux2014 is manylinux_2_17: claimed once.
			t, err := targets.Lookup(tag)
			if err != nil || !t.IsPolicy() || slices.ContainsFunc(append(user, c.targets...), func(u targets.Target) bool { return u.Name == t.Name }) {
				continue
			}
			c.targets = append(c.targets, t)
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

// libcFor is the libc claim a file of arch is held to.
func (c *claims) libcFor(arch string) (libcClaim, bool) {
	var plain *libcClaim
	for i, l := range c.libc {
		if l.arch == arch && arch != "" {
			return l, true
		}
		if l.arch == "" {
			plain = &c.libc[i]
		}
	}
	if plain == nil {
		return libcClaim{}, false
	}
	return *plain, true
}

// violations checks one member's report against the claims.
func (c *claims) violations(rep FileReport) []Violation {
	var out []Violation
	if l, ok := c.libcFor(rep.Arch); ok && rep.Libc != Musl {
		if req, ok := rep.Floors["GLIBC"]; ok && (l.version == "" || symver.Compare(req, l.version) > 0) {
			v := Violation{Path: rep.Path, Namespace: "GLIBC", Required: req, Allowed: l.version, Symbols: []Ref{}, Rule: RuleClaim, Target: l.source}
			for _, s := range rep.Why["GLIBC"] {
				if ver, ok := strings.CutPrefix(s.Version, "GLIBC_"); !ok || l.version == "" || symver.Compare(ver, l.version) > 0 {
					v.Symbols = append(v.Symbols, s)
				}
			}
			out = append(out, v)
		}
	}
	out = append(out, c.runtimeViolations(rep)...)
	if c.npm != nil {
		if cpu, ok := npmCPU[rep.Arch]; ok && len(c.npm.CPU) > 0 && !allows(c.npm.CPU, cpu) {
			out = append(out, Violation{Path: rep.Path, Symbols: []Ref{}, Rule: RuleClaim, Target: fmt.Sprintf("package.json cpu %v: the file is %s (%s)", c.npm.CPU, cpu, rep.Arch)})
		}
		if rep.Libc != "" && len(c.npm.Libc) > 0 && !allows(c.npm.Libc, rep.Libc) {
			out = append(out, Violation{Path: rep.Path, Symbols: []Ref{}, Rule: RuleClaim, Target: fmt.Sprintf("package.json libc %v: the file is linked against %s", c.npm.Libc, rep.Libc)})
		}
	}
	return out
}

// checks says of each claim whether the members kept it.
func (c *claims) checks(artefactPath string, members []item) []ClaimCheck {
	var out []ClaimCheck
	add := func(claim string, held func(Violation) bool, applies func(FileReport) bool) {
		cc := ClaimCheck{Artefact: artefactPath, Claim: claim, Held: true}
		for _, m := range members {
			if m.rep.Error != nil || m.rep.Floors == nil || !applies(m.rep) {
				continue
			}
			cc.Files++
			for _, v := range m.viol {
				if held(v) {
					cc.Held = false
				}
			}
		}
		out = append(out, cc)
	}
	for _, l := range c.libc {
		add(l.source, func(v Violation) bool { return v.Rule == RuleClaim && v.Target == l.source },
			func(r FileReport) bool { got, ok := c.libcFor(r.Arch); return ok && got.source == l.source })
	}
	// One Depends entry of libstdc++6 claims both GLIBCXX and CXXABI;
	// its check is one (a violation names the entry, not the namespace).
	said := map[string]bool{}
	for _, r := range c.rt {
		if said[r.source] {
			continue
		}
		said[r.source] = true
		add(r.source, func(v Violation) bool { return v.Rule == RuleClaim && v.Target == r.source },
			func(f FileReport) bool { return f.Libc != Musl })
	}
	for _, t := range c.targets {
		add("platform tag "+t.Name, func(v Violation) bool { return v.Target == t.Name || strings.Contains(v.Target, t.Name) },
			func(FileReport) bool { return true })
	}
	if c.npm != nil {
		add(fmt.Sprintf("package.json cpu %v libc %v", c.npm.CPU, c.npm.Libc),
			func(v Violation) bool { return v.Rule == RuleClaim && strings.HasPrefix(v.Target, "package.json ") },
			func(FileReport) bool { return true })
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
