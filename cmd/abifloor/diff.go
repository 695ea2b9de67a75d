package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/internal/input"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/report"
)

// diff exit codes are abidiff's bits, so scripts written for abidiff work.
const (
	diffError        = abidiff.ExitError
	diffUsage        = abidiff.ExitUsage
	diffChange       = abidiff.ExitChange
	diffIncompatible = abidiff.ExitIncompatible
)

func runDiff(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "diff", "OLD NEW [--format text|json|github|sarif|junit] [--strict] [--harmless] [--suppressions FILE]... [--debug-dir DIR] [--d1 DIR] [--d2 DIR] [--headers-dir1 DIR] [--headers-dir2 DIR] [--max-debug-size N]")
	format := fs.String("format", "text", "output `format`: text, json, github, sarif or junit")
	var supFiles multiFlag
	supUsage := "hide changes matching the rules in `FILE`: libabigail's suppression format ([suppress_function], [suppress_variable], [suppress_type]) or lines \"symbol REGEX\" / \"type REGEX\"; repeatable"
	fs.Var(&supFiles, "suppressions", supUsage)
	fs.Var(&supFiles, "suppr", "same as --suppressions `FILE` (abidiff's short name)")
	var dirs, dirs1, dirs2 multiFlag
	fs.Var(&dirs, "debug-dir", "separate debug info `DIR` for both inputs; repeatable")
	fs.Var(&dirs1, "debug-dir1", "separate debug info `DIR` for OLD only; repeatable")
	fs.Var(&dirs2, "debug-dir2", "separate debug info `DIR` for NEW only; repeatable")
	fs.Var(&dirs1, "d1", "same as --debug-dir1 `DIR` (abidiff's name)")
	fs.Var(&dirs2, "d2", "same as --debug-dir2 `DIR` (abidiff's name)")
	var hdirs1, hdirs2 multiFlag
	fs.Var(&hdirs1, "headers-dir1", "public headers of OLD under `DIR`: a change to a struct, union or enum they do not define is private, and hidden (abidiff's option); repeatable")
	fs.Var(&hdirs2, "headers-dir2", "public headers of NEW under `DIR`, as --headers-dir1; repeatable")
	fs.Var(&hdirs1, "hd1", "same as --headers-dir1 `DIR`")
	fs.Var(&hdirs2, "hd2", "same as --headers-dir2 `DIR`")
	strict := fs.Bool("strict", false, "set exit bit 8 (incompatible) for every break abifloor proves, not only for what abidiff calls incompatible")
	harmless := fs.Bool("harmless", false, "count the changes abidiff calls harmless (typedef spellings, enumerators added, members renamed in place) in the exit status, as abidiff --harmless does")
	maxDebug := sizeFlag(abi.DefaultMaxDebugSize)
	fs.Var(&maxDebug, "max-debug-size", "refuse a file whose compressed sections hold more than `N` bytes uncompressed (512M, 2G)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		if flagExit(err) == exitOK {
			return exitOK
		}
		return diffError | diffUsage
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit)
	if err != nil || len(pos) != 2 {
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor diff:", err)
			return diffError | diffUsage
		}
		usageError(fs, "%s", missingArgs([]string{"OLD", "NEW"}, pos))
		return diffError | diffUsage
	}
	var sups []*abidiff.Suppressions
	for _, name := range supFiles {
		s, err := readSuppressions(name)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor diff:", err)
			return diffError | diffUsage
		}
		for _, w := range s.Warnings {
			fmt.Fprintln(env.stderr, "abifloor diff: warning:", w)
		}
		sups = append(sups, s)
	}
	sup := abidiff.JoinSuppressions(sups...).WithFiles(pos[0], pos[1])
	// Two large DWARF trees are built and dropped once; collecting less
	// often saves a third of the time for a little more peak memory.
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	opts := [2]abi.Options{{DebugDirs: append(dirs1, dirs...), MaxDebugSize: int64(maxDebug)}, {DebugDirs: append(dirs2, dirs...), MaxDebugSize: int64(maxDebug)}}
	var abis [2]*abi.ABI
	var errs [2]error
	done := make(chan int, 2)
	for i := range 2 {
		go func() {
			abis[i], _, errs[i] = abi.LoadArg(ctx, pos[i], opts[i], nil)
			done <- i
		}()
	}
	// The readers of DWARF do not stop halfway: an interrupted diff
	// leaves them behind and ends now. It is an error (abidiff's bit 1),
	// never a result.
	for range 2 {
		select {
		case <-done:
		case <-ctx.Done():
			fmt.Fprintln(env.stderr, "abifloor diff: incomplete: interrupted while reading the inputs; no result")
			return diffError
		}
	}
	for i, err := range errs {
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor diff:", cleanLines(err.Error())+limitHint(err))
			return diffError
		}
		if abis[i].DebugInfo == abi.DebugNone {
			fmt.Fprintf(env.stderr, "abifloor diff: %s: no debug info found: comparing symbols only\n", report.Clean(pos[i]))
		}
	}
	for i, a := range abis {
		if sup.SuppressesFile(pos[i], a.SOName) {
			fmt.Fprintf(env.stdout, "%s: not compared: a [suppress_file] section matches it\n", report.Clean(pos[i]))
			return 0
		}
	}
	if len(abis[0].Symbols) == 0 && len(abis[1].Symbols) == 0 && len(abis[0].Types) == 0 && len(abis[1].Types) == 0 && len(abis[0].Constants)+len(abis[1].Constants) == 0 {
		fmt.Fprintf(env.stderr, "abifloor diff: nothing to compare: neither %s nor %s defines a symbol or a type\n", report.Clean(pos[0]), report.Clean(pos[1]))
		return diffError
	}
	if len(hdirs1)+len(hdirs2) > 0 {
		var pub [2]map[string]bool
		for i, dirs := range [2][]string{hdirs1, hdirs2} {
			if len(dirs) == 0 {
				continue
			}
			if i == 1 && pub[0] != nil && slices.Equal(hdirs1, hdirs2) && cxx(abis[0]) == cxx(abis[1]) {
				pub[1] = pub[0] // the same headers, compiled once
				continue
			}
			p, err := headerTypes(ctx, dirs, abis[i], env.stderr)
			if err != nil {
				// Never hides a change: without the headers'
				// answer every type counts as public.
				fmt.Fprintf(env.stderr, "abifloor diff: warning: public headers of %s not read, every type counts as public: %s\n", report.Clean(pos[i]), cleanLines(err.Error()))
				continue
			}
			pub[i] = p
		}
		sup = sup.WithPublicTypes(pub[0], pub[1], abis[0], abis[1])
	}
	r := abidiff.Compare(abis[0], abis[1], sup)
	if ctx.Err() != nil {
		fmt.Fprintln(env.stderr, "abifloor diff: incomplete: interrupted; no result")
		return diffError
	}
	switch f {
	case report.JSON:
		err = report.WriteJSON(env.stdout, &r)
	case report.SARIF:
		err = r.WriteSARIF(env.stdout, buildVersion(), pos[1])
	case report.JUnit:
		err = r.WriteJUnit(env.stdout, pos[1])
	case report.GitHub:
		r.WriteGitHub(env.stdout, pos[1])
	default:
		err = r.WriteText(env.stdout, report.Painter{On: report.UseColor(env.tty, env.getenv)})
	}
	if err != nil {
		fmt.Fprintln(env.stderr, "abifloor diff:", err)
		return diffError
	}
	return r.ExitWith(abidiff.ExitRules{Strict: *strict, Harmless: *harmless})
}

// readSuppressions parses one suppression file; it must be a regular file
// (a FIFO or device is refused, and does not block the open).
func readSuppressions(name string) (*abidiff.Suppressions, error) {
	in, err := input.Open(name, []byte{}, nil) // no head: the parser reads it all
	if errors.Is(err, input.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", name, input.ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return abidiff.ParseSuppressions(name, io.NewSectionReader(in.FD, 0, in.Size))
}

// maxHeaders bounds the header files one --headers-dir may bring in.
const maxHeaders = 4096

// headerTypes compiles every header under dirs and returns the keys of the
// structs, unions and enums they define (a declaration alone is not a
// definition). A C++ input (one with mangled symbols) is compiled with
// g++.
func headerTypes(ctx context.Context, dirs []string, a *abi.ABI, warn io.Writer) (map[string]bool, error) {
	var headers []string
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		// The compiler runs elsewhere: the headers are named in full.
		var err error
		if abs[i], err = filepath.Abs(d); err != nil {
			return nil, err
		}
	}
	dirs = abs
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".h", ".hh", ".hpp", ".hxx", ".h++":
				if e.Type().IsRegular() {
					headers = append(headers, p)
				}
			}
			if len(headers) > maxHeaders {
				return fmt.Errorf("%s: more than %d headers", d, maxHeaders)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(headers) == 0 {
		return nil, fmt.Errorf("no header under %s", strings.Join(dirs, ", "))
	}
	cc := "cc"
	if cxx(a) {
		cc = "g++"
	}
	out := map[string]bool{}
	add := func(a *abi.ABI) {
		for k, t := range a.Types {
			if (t.Kind == abi.Struct || t.Kind == abi.Union || t.Kind == abi.Enum) && !t.Incomplete && !(t.Kind == abi.Enum && t.Size == 0 && len(t.Enumerators) == 0) {
				out[k] = true
			}
		}
	}
	opt := abi.HeaderOptions{Includes: dirs, Headers: headers, Types: []string{"*"}, CC: cc, Absent: true}
	res, err := abi.CompileHeaders(ctx, opt)
	var conflict *abi.ConflictError
	if errors.As(err, &conflict) && len(headers) > 1 && len(headers) <= maxApart {
		// Headers that do not compile together (two versions of one
		// header side by side) are read one by one, and what each
		// defines counts.
		budget := maxApart
		try := func(hs ...string) bool {
			if budget--; budget < 0 {
				return false
			}
			opt.Headers = hs
			r, err := abi.CompileHeaders(ctx, opt)
			if err != nil || len(r.Absent.Headers) > 0 {
				return false
			}
			add(r.ABI)
			return true
		}
		var alone, failed []string
		for _, h := range headers {
			if try(h) {
				alone = append(alone, h)
			} else {
				failed = append(failed, h)
			}
		}
		// A header that needs another directory's first is read after
		// each one that compiles alone, until one pair compiles.
		for _, h := range failed {
			for _, g := range alone {
				if filepath.Dir(g) != filepath.Dir(h) && try(g, h) {
					break
				}
			}
		}
		if len(alone) == 0 {
			// Nothing compiles on its own: what the header text
			// defines counts.
			fmt.Fprintf(warn, "abifloor diff: warning: no header under %s compiles on its own: their definitions are read from their text\n", strings.Join(dirs, ", "))
			return scanDefinitions(headers)
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	if len(res.Absent.Headers) > 0 {
		// A header not found would make every type it defines
		// private: refuse rather than guess.
		return nil, fmt.Errorf("headers not found: %s", strings.Join(res.Absent.Headers, ", "))
	}
	add(res.ABI)
	return out, nil
}

// maxApart bounds the compiles of headers read one by one.
const maxApart = 64

// definitionRe finds "struct NAME {" (union, enum, class) in header text.
var definitionRe = regexp.MustCompile(`\b(struct|union|enum|class)\s+([A-Za-z_]\w*)\s*(?::[^{;]*)?\{`)

// scanDefinitions reads the struct, union and enum definitions of headers
// from their text, when no compile of them succeeds: a fallback that can
// miss a definition made by a macro (which then counts as private only if
// no other header defines it).
func scanDefinitions(headers []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, h := range headers {
		b, err := os.ReadFile(h)
		if err != nil {
			return nil, err
		}
		if len(b) > 16<<20 {
			return nil, fmt.Errorf("%s: header over 16 MB", h)
		}
		for _, m := range definitionRe.FindAllSubmatch(b, -1) {
			kind := string(m[1])
			if kind == "class" {
				kind = "struct"
			}
			out[kind+" "+string(m[2])] = true
		}
	}
	return out, nil
}

// cxx reports whether a has a mangled (C++) symbol.
func cxx(a *abi.ABI) bool {
	for _, s := range a.Symbols {
		if s.Demangled != "" {
			return true
		}
	}
	return false
}
