package floor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// Limit is one namespace limit of a check and what set it.
type Limit struct {
	Namespace string `json:"namespace"`
	Version   string `json:"version"`
	// Source names what set it: a target's name, "image PATH", or
	// whatever the caller says (abifloor writes "--max").
	Source string `json:"source"`
}

// Requirements are what a check holds files to. Check applies all of
// them: every limit, every target (a distro's limits, a policy's rules per
// architecture, and each target's libc), and, inside an artefact, what the
// artefact itself claims (a .deb's Depends on libc6, an rpm's Requires, a
// wheel's platform tags, an npm package's cpu and libc). Each violation
// names its source in Violation.Target.
type Requirements struct {
	Limits  []Limit
	Targets []targets.Target
	// AllowEmpty lets a check of paths that hold no ELF file pass: by
	// default it is an error, as a gate that checked nothing must not
	// pass.
	AllowEmpty bool
	// ViolationsWarn makes violations warnings (Verdict Warn): only a
	// file that could not be read, or a run cut short, fails the check.
	ViolationsWarn bool
}

// Add adds the limit ns ≤ ver set by source; the namespace is spelt as
// the toolchain spells it (glibc is GLIBC).
func (rq *Requirements) Add(ns, ver, source string) {
	rq.Limits = append(rq.Limits, Limit{CanonicalNamespace(ns), ver, source})
}

// effective folds the limits and the distro targets' limits into one
// limit per namespace, the lowest (a binary must load on every target
// named), each with its source; ties keep the first given.
func (rq Requirements) effective() (Limits, map[string]string) {
	lim, from := Limits{}, map[string]string{}
	add := func(ns, ver, src string) {
		if cur, ok := lim.Lookup(ns); !ok || symver.Compare(ver, cur) < 0 {
			for k := range lim {
				if strings.EqualFold(k, ns) {
					delete(lim, k)
					delete(from, k)
				}
			}
			lim[ns], from[ns] = ver, src
		}
	}
	for _, l := range rq.Limits {
		add(l.Namespace, l.Version, l.Source)
	}
	for _, t := range rq.Targets {
		if !t.IsPolicy() {
			for ns, ver := range t.Limits {
				add(ns, ver, t.Name)
			}
		}
	}
	return lim, from
}

// Effective is the limit per namespace the check applies: the lowest of
// the limits and the distro targets' limits.
func (rq Requirements) Effective() Limits {
	l, _ := rq.effective()
	return l
}

// CheckResult is a Scan held to Requirements.
type CheckResult struct {
	*Result
	// Unused are the limits of Requirements.Limits that no file needs a
	// version of: each checked nothing (a typo, or the wrong tree). Empty
	// when no ELF file was read.
	Unused []Limit `json:"-"`
	// Empty is set when the paths held no ELF file and nothing failed to
	// be read: nothing was checked, which a gate must not call a pass.
	Empty bool `json:"-"`
	// Warnings are said beside the findings, in every report: a limit
	// that checked nothing (Unused).
	Warnings []string `json:"-"`
	// Requirements are what the files were held to, as Check applied
	// them: the reports name the limits and policies, and the verdict
	// follows AllowEmpty and ViolationsWarn.
	Requirements Requirements `json:"-"`
}

// Passed reports whether the check passed: complete, something checked,
// nothing unreadable, no violation.
func (c *CheckResult) Passed() bool {
	return !c.Incomplete && !c.Empty && c.Stats.Errors == 0 && len(c.Violations) == 0
}

// ErrNothing is Check's error when Requirements hold nothing to check
// against and no path is an artefact that claims anything.
var ErrNothing = errors.New("nothing to check against: no limit, no target, and no artefact that claims where it runs")

// Check scans paths (Options as for Scan; its Limits and Targets are
// added to rq) and holds every file to rq. A file with a violation (every
// file, with Options.Why) is read for where it uses the symbols behind it
// (Options.Sites). The result's Err is set when the scan was cut short;
// the error returned is ErrNothing when there was nothing to hold the
// files to. The result carries its verdict (CheckResult.Verdict) and its
// reports (CheckResult.Write).
func Check(ctx context.Context, paths []string, rq Requirements, opt Options) (*CheckResult, error) {
	for ns, ver := range opt.Limits {
		rq.Add(ns, ver, "")
	}
	rq.Targets = append(rq.Targets, opt.Targets...)
	opt.Limits, opt.sources = rq.effective()
	opt.Targets, opt.EachTarget, opt.Claims, opt.Sites = dedupTargets(rq.Targets), false, true, true
	res := Scan(ctx, paths, opt)
	c := &CheckResult{Result: res, Empty: res.Stats.ELF == 0 && res.Stats.Errors == 0 && !res.Incomplete, Requirements: rq}
	if len(rq.Limits) == 0 && len(rq.Targets) == 0 && len(res.Claims) == 0 && !res.Incomplete && res.Stats.ELF > 0 {
		return c, ErrNothing
	}
	if res.Stats.ELF > 0 {
		for _, l := range rq.Limits {
			if _, used := Limits(res.Floors).Lookup(l.Namespace); !used {
				c.Unused = append(c.Unused, l)
			}
		}
	}
	c.Warnings = unusedWarnings(c.Unused)
	return c, nil
}

func dedupTargets(ts []targets.Target) []targets.Target {
	var out []targets.Target
	seen := map[string]bool{}
	for _, t := range ts {
		if !seen[t.Name] {
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	return out
}

// ErrIncomplete is the error of a scan cut short (its context cancelled):
// its result covers only some of the files, so it proves nothing.
var ErrIncomplete = errors.New("incomplete")

func incomplete(ctx context.Context, files int64) error {
	return fmt.Errorf("%w: interrupted after %d of the files found: %w", ErrIncomplete, files, context.Cause(ctx))
}
