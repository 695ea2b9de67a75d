package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ianlancetaylor/demangle"

	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/report"
)

func runFit(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "fit", "[--format text|json] [--demangle] [--follow] [--exclude PATTERN]... PATH...")
	var sf scanFlags
	fs.Var(&sf.exclude, "exclude", "skip files and directories whose name or path matches this pattern (repeatable)")
	fs.StringVar(&sf.format, "format", "text", "output format: text|json")
	fs.BoolVar(&sf.follow, "follow", false, "follow symbolic links inside directories")
	fs.IntVar(&sf.jobs, "j", 0, "files read in parallel (default 2×CPUs)")
	fs.BoolVar(&sf.strict, "strict", false, "a malformed artefact met inside a directory is an error (by default a warning)")
	dm := fs.Bool("demangle", false, "write C++ symbol names demangled (std::__throw_bad_array_new_length())")
	paths, format, code := parsePathsTextJSON(env, fs, args, &sf.format)
	if code >= 0 {
		return code
	}
	sf.demangle = *dm
	ts := floor.FitTargets()
	opt, done := scanOptions(env, sf)
	opt.Targets, opt.EachTarget = ts, true
	res := floor.Scan(ctx, paths, opt)
	done()
	demangleResult(res, sf)
	fit := floor.Fit(res, ts)
	if fit.Incomplete {
		// The files not reached could block any tag: a tree verdict over
		// the files seen so far is no verdict.
		fit.Tree = []floor.TreeFit{}
	}
	if format == report.JSON {
		report.WriteJSON(env.stdout, fit)
	} else {
		writeFitText(env.stdout, fit)
	}
	switch {
	case res.Incomplete:
		fmt.Fprintf(env.stderr, "abifloor fit: %v\n", res.Err)
		return exitError
	case res.Stats.Errors > 0:
		return exitError
	case res.Stats.ELF == 0:
		fmt.Fprintf(env.stderr, "abifloor fit: no ELF file under %s\n", report.Clean(strings.Join(paths, " ")))
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
			fmt.Fprintf(tw, "%s\terror: %s\n", report.Clean(f.Path), report.Clean(f.Error))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", report.Clean(f.Path), report.Clean(f.Arch), policyLine(f.Fits))
		fmt.Fprintf(tw, "    distros: %s\n", distroList(f.Distros))
	}
	tw.Flush()
	byArch := map[string]int{}
	for _, t := range fit.Tree {
		byArch[t.Arch]++
	}
	for _, t := range fit.Tree {
		fmt.Fprintf(w, "tree %s%s (%s): %s\n", report.Clean(t.Arch), libcSuffix(t.Libc), plural(t.Files, "file"), policyLine(t.Fits))
		if byArch[t.Arch] > 1 {
			// Two rows of one architecture: say why.
			fmt.Fprintf(w, "    (%s files are split by C library: %s)\n", report.Clean(t.Arch), libcNote(t.Libc))
		}
		if t.Libc == floor.Musl && t.Policy != "" {
			fmt.Fprintln(w, "    note: musl has no symbol versions, so musllinux_1_1 and musllinux_1_2 cannot be told apart: the tag is the oldest the policy table allows")
		}
		for _, d := range t.Distros {
			fmt.Fprintf(w, "    %s: %s\n", report.Clean(d.Family), distroLine(d))
		}
	}
}

// libcNote says what a tree row's libc means.
func libcNote(libc string) string {
	switch libc {
	case "":
		return "these need no C library (static, or none needed), so they load on glibc and musl alike"
	case floor.Musl:
		return "these are linked against musl and are held to musllinux and musl distros only"
	}
	return "these are linked against glibc and are held to manylinux and glibc distros only"
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
		s = "fits " + report.Clean(f.Policy)
	}
	if f.Blocked != nil {
		s += "; " + report.Clean(f.Blocked.Target) + " blocked by " + blockers(f.Blocked.Violations, 3)
	}
	return s
}

func distroList(ds []floor.DistroFit) string {
	var parts []string
	for _, d := range ds {
		if d.Oldest != "" {
			parts = append(parts, report.Clean(d.Oldest))
		} else {
			parts = append(parts, "no "+report.Clean(d.Family))
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
		s = "oldest " + report.Clean(d.Oldest)
	}
	if d.Blocked != nil {
		s += "; " + report.Clean(d.Blocked.Target) + " blocked by " + blockers(d.Blocked.Violations, 2)
	}
	return s
}

// blockers says what the violations are (floor.Blockers): at most max
// causes, each with its first symbols and the files it blocks.
func blockers(vs []floor.Violation, max int) string {
	var parts []string
	bs := floor.Blockers(vs)
	for i, b := range bs {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(bs)-max))
			break
		}
		s := b.Cause
		if len(b.Symbols) > 0 {
			s += ": " + strings.Join(b.Symbols[:min(4, len(b.Symbols))], ", ")
			if len(b.Symbols) > 4 {
				s += fmt.Sprintf(" and %d more", len(b.Symbols)-4)
			}
		}
		if b.Files > 1 {
			s += " (" + plural(b.Files, "file") + ")"
		}
		parts = append(parts, s)
	}
	return report.Clean(strings.Join(parts, "; "))
}

// plural writes "1 file", "2 files".
func plural(n int, noun string) string { return plural64(int64(n), noun) }

func plural64(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
