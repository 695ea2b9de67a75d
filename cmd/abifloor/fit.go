package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ianlancetaylor/demangle"

	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/symver"
)

func runFit(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "fit", "[--format text|json] [--demangle] [--follow] [--exclude PATTERN]... PATH...")
	var sf scanFlags
	fs.Var(&sf.exclude, "exclude", "skip files and directories whose name or path matches this pattern (repeatable)")
	fs.StringVar(&sf.format, "format", "text", "output format: text|json")
	fs.BoolVar(&sf.follow, "follow", false, "follow symbolic links inside directories")
	fs.IntVar(&sf.jobs, "j", 0, "files read in parallel (default 2×CPUs)")
	dm := fs.Bool("demangle", false, "write C++ symbol names demangled (std::__throw_bad_array_new_length())")
	paths, format, code := parsePathsTextJSON(env, fs, args, &sf.format)
	if code >= 0 {
		return code
	}
	ts := floor.FitTargets()
	opt := floor.Options{Follow: sf.follow, Exclude: sf.exclude, Targets: ts, EachTarget: true, Workers: sf.jobs}
	show, done := progress(env)
	opt.Progress = func(files, elf int64) { show("%d files, %d ELF", files, elf) }
	opt.ArtefactProgress = showArtefacts(show)
	res := floor.Scan(ctx, paths, opt)
	done()
	if *dm {
		for i := range res.Violations {
			demangleAll(res.Violations[i].Symbols)
		}
	}
	fit := floor.Fit(res, ts)
	if format == report.JSON {
		report.WriteJSON(env.stdout, fit)
	} else {
		writeFitText(env.stdout, fit)
	}
	switch {
	case res.Stats.Errors > 0:
		return exitError
	case res.Stats.ELF == 0:
		fmt.Fprintf(env.stderr, "abifloor fit: no ELF file under %s\n", strings.Join(paths, " "))
		return exitError
	}
	return exitOK
}

// demangleAll rewrites name@VER entries in place with the name demangled;
// names that are not mangled stay as they are.
func demangleAll(syms []string) {
	for i, s := range syms {
		name, ver, _ := strings.Cut(s, "@")
		d := demangle.Filter(name)
		if d != name {
			if ver != "" {
				d += "@" + ver
			}
			syms[i] = d
		}
	}
}

func writeFitText(w io.Writer, fit *floor.FitReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range fit.Files {
		if f.Error != "" {
			fmt.Fprintf(tw, "%s\terror: %s\n", f.Path, f.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Path, f.Arch, policyLine(f.Fits))
		fmt.Fprintf(tw, "    distros: %s\n", distroList(f.Distros))
	}
	tw.Flush()
	for _, t := range fit.Tree {
		fmt.Fprintf(w, "tree %s%s (%s): %s\n", t.Arch, libcSuffix(t.Libc), plural(t.Files, "file"), policyLine(t.Fits))
		for _, d := range t.Distros {
			fmt.Fprintf(w, "    %s: %s\n", d.Family, distroLine(d))
		}
	}
}

func libcSuffix(libc string) string {
	if libc == "" || libc == floor.Glibc {
		return ""
	}
	return "/" + libc
}

func policyLine(f floor.Fits) string {
	s := "fits no manylinux or musllinux tag"
	if f.Policy != "" {
		s = "fits " + f.Policy
	}
	if f.Blocked != nil {
		s += "; " + f.Blocked.Target + " blocked by " + blockers(f.Blocked.Violations, 3)
	}
	return s
}

func distroList(ds []floor.DistroFit) string {
	var parts []string
	for _, d := range ds {
		if d.Oldest != "" {
			parts = append(parts, d.Oldest)
		} else {
			parts = append(parts, "no "+d.Family)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func distroLine(d floor.DistroFit) string {
	s := "no release in the table"
	if d.Oldest != "" {
		s = "oldest " + d.Oldest
	}
	if d.Blocked != nil {
		s += "; " + d.Blocked.Target + " blocked by " + blockers(d.Blocked.Violations, 2)
	}
	return s
}

// blockers says what the violations are, grouped by cause, the groups
// with most files first, at most max groups, each with its first symbols
// (highest version first).
func blockers(vs []floor.Violation, max int) string {
	type group struct {
		v     floor.Violation // the first, Required raised to the group's highest
		syms  []string
		seen  map[string]bool
		files map[string]bool
	}
	var gs []*group
	byKey := map[string]*group{}
	for _, v := range vs {
		k := blockKey(v)
		g := byKey[k]
		if g == nil {
			g = &group{v: v, seen: map[string]bool{}, files: map[string]bool{}}
			byKey[k] = g
			gs = append(gs, g)
		}
		if v.Rule == "" && symver.Compare(v.Required, g.v.Required) > 0 {
			g.v.Required = v.Required
		}
		g.files[v.Path] = true
		for _, s := range v.Symbols {
			if !g.seen[s] {
				g.seen[s] = true
				g.syms = append(g.syms, s)
			}
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return len(gs[i].files) > len(gs[j].files) })
	var parts []string
	for i, g := range gs {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(gs)-max))
			break
		}
		s := blockText(g.v)
		if len(g.syms) > 0 {
			sort.SliceStable(g.syms, func(i, j int) bool { return symver.Compare(symVersion(g.syms[i]), symVersion(g.syms[j])) > 0 })
			s += ": " + strings.Join(g.syms[:min(4, len(g.syms))], ", ")
			if len(g.syms) > 4 {
				s += fmt.Sprintf(" and %d more", len(g.syms)-4)
			}
		}
		if len(g.files) > 1 {
			s += " (" + plural(len(g.files), "file") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// symVersion is the numeric version of name@NS_VER, for ordering.
func symVersion(sym string) string {
	i := strings.LastIndex(sym, "@")
	if i < 0 {
		return ""
	}
	_, v, _ := symver.Split(sym[i+1:])
	return v
}

// blockKey groups violations with one cause: a policy's version name, a
// namespace above one limit, a library.
func blockKey(v floor.Violation) string {
	switch v.Rule {
	case floor.RuleSymbolVersions:
		return v.Rule + " " + v.Namespace + "_" + v.Required
	case "":
		return v.Namespace + " > " + v.Allowed
	}
	return v.Rule + " " + v.Library + " " + v.Required
}

// blockText is the short cause of a violation: GLIBCXX_3.4.25,
// "GLIBC 2.34 > 2.31", libfoo.so.1 (not in lib_whitelist).
func blockText(v floor.Violation) string {
	switch v.Rule {
	case floor.RuleSymbolVersions:
		return v.Namespace + "_" + v.Required
	case floor.RuleLibWhitelist:
		return v.Library + " (not in lib_whitelist)"
	case floor.RuleBlacklist:
		return "blacklisted symbols of " + v.Library
	case "":
		return fmt.Sprintf("%s %s > %s", v.Namespace, v.Required, v.Allowed)
	}
	return v.Cause()
}

// plural writes "1 file", "2 files".
func plural(n int, noun string) string { return plural64(int64(n), noun) }

func plural64(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
