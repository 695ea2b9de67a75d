package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/abifloor/abifloor/internal/atomicfile"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/ranges"
	"github.com/abifloor/abifloor/ranges/table"
	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/symver"
)

func rangesUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: abifloor ranges build [--abi VER=FILE]... [--dir VER=DIR]... [--git REPO --tags REGEX] [-I DIR]... [--header FILE]... [--type NAME]... [--format text|json|go|html] [-o FILE]")
	fmt.Fprintln(w, "       abifloor ranges lookup TABLE VERSION")
	fmt.Fprintln(w, "       abifloor ranges add TABLE VERSION INPUT | abifloor ranges add --git REPO TABLE TAG")
	fmt.Fprintln(w, "       abifloor ranges show TABLE [--format text|json|go|html]")
}

func runRanges(ctx context.Context, env *cmdEnv, args []string) int {
	if len(args) == 0 {
		return missingSub(env, "ranges")
	}
	if (args[0] == "build" || args[0] == "add") && (env.getenv == nil || env.getenv("GOMEMLIMIT") == "") {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limits.HeavyMemory))
	}
	switch args[0] {
	case "build":
		return runRangesBuild(ctx, env, args[1:])
	case "lookup":
		return runRangesLookup(env, args[1:])
	case "add":
		return runRangesAdd(ctx, env, args[1:])
	case "show":
		return runRangesShow(env, args[1:])
	case "-h", "--help", "help":
		return helpCommand(ctx, env, []string{"ranges"})
	}
	env.sayf("ranges", "unknown sub-command %q%s", args[0], didYouMean(args[0], subcommands["ranges"], ""))
	rangesUsage(env.stderr)
	return exitError
}

// headerFlags are the abi headers options, shared by build and add.
type headerFlags struct {
	inc, hdr, typ, opq, cst, def multiFlag
	cc, arch, surface            string
	strict                       bool
}

func (h *headerFlags) register(fs *flag.FlagSet) {
	fs.Var(&h.inc, "I", "include `DIR`, relative to each version's tree; repeatable")
	fs.Var(&h.hdr, "header", "include `FILE` or glob, relative to the include dirs and expanded per version; repeatable, in order")
	fs.Var(&h.opq, "opaque", "keep the type `NAME` or glob by size and alignment only; repeatable")
	fs.StringVar(&h.surface, "surface", "", "read include dirs, headers, types, opaque types and constants from the JSON `FILE` (combines with the flags)")
	fs.BoolVar(&h.strict, "strict", false, "fail a version that lacks a type, constant or header, naming every one")
	fs.Var(&h.typ, "type", "keep the type `NAME` or glob; repeatable")
	fs.Var(&h.cst, "const", "evaluate the integer macro or constant `NAME`; repeatable")
	fs.Var(&h.def, "D", "define a macro (`NAME[=VALUE]`); repeatable")
	fs.StringVar(&h.cc, "cc", "", "C compiler (default cc)")
	fs.StringVar(&h.arch, "target-arch", "", "target `ARCH` for a cross compiler")
}

func (h *headerFlags) options() (ranges.Options, error) {
	o := ranges.Options{Includes: h.inc, Headers: h.hdr, Types: h.typ, Opaque: h.opq, Consts: h.cst, Defines: h.def, CC: h.cc, Arch: h.arch, Strict: h.strict}
	if h.surface != "" {
		s, err := ranges.ReadSurface(h.surface)
		if err != nil {
			return o, fmt.Errorf("--surface: %w", err)
		}
		o.Merge(s)
	}
	return o, o.Check()
}

func (h *headerFlags) set() bool {
	return len(h.inc)+len(h.hdr)+len(h.typ)+len(h.opq)+len(h.cst)+len(h.def) > 0 || h.surface != ""
}

// outputFormat is --format, or, when it was not given, the format -o's
// extension names (.json, .html, .go).
func outputFormat(fs *flag.FlagSet, format, out string) string {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "format" })
	if f := ranges.FormatOf(out); !given && f != "" {
		return f
	}
	return format
}

func rangesFormat(s string) (report.Format, error) {
	return report.ParseFormat(s, report.Text, report.JSON, "go", "html")
}

// rangesBuilder returns a builder with the user's cache unless noCache.
func rangesBuilder(env *cmdEnv, opt ranges.Options, noCache bool) *ranges.Builder {
	b := &ranges.Builder{Options: opt}
	if !noCache {
		c, warning, err := ranges.UserCache(env.getenv)
		if warning != "" {
			env.say("ranges", "warning:", warning)
		}
		if err != nil {
			env.say("ranges", "no cache:", err)
		} else {
			b.Cache = c
		}
	}
	return b
}

func runRangesBuild(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "ranges build", "[--abi VER=FILE]... [--dir VER=DIR]... [--git REPO --tags REGEX] [header options] [--format text|json|go|html]")
	var hf headerFlags
	hf.register(fs)
	var abis, dirs multiFlag
	fs.Var(&abis, "abi", "the ABI of version `VER=FILE` (ABI JSON or ELF); repeatable")
	fs.Var(&dirs, "dir", "the header tree of version `VER=DIR`; repeatable")
	repo := fs.String("git", "", "git repository `REPO` whose tags are the versions")
	tags := fs.String("tags", "", "tags of --git to build: a `REGEX`")
	format := fs.String("format", "text", "output `format`: text, json, go or html")
	goPkg := fs.String("go-package", "abiranges", "package `NAME` of --format go")
	title := fs.String("title", "", "page `TITLE` of --format html")
	out := fs.String("o", "", "write the table to `FILE` instead of stdout")
	jobs := fs.Int("j", 0, "versions built at once (default: one per CPU)")
	noCache := fs.Bool("no-cache", false, "neither read nor write the ABI cache")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	f, ferr := rangesFormat(outputFormat(fs, *format, *out))
	usageErr := func(msg string) int {
		env.say("ranges build", msg)
		fs.Usage()
		return exitError
	}
	opt, oerr := hf.options()
	if oerr != nil {
		return env.say("ranges build", oerr)
	}
	switch {
	case ferr != nil:
		return usageErr(ferr.Error())
	case len(pos) != 0:
		return usageErr(fmt.Sprintf("unexpected argument %q", pos[0]))
	case (*repo == "") != (*tags == ""):
		return usageErr("--git and --tags go together")
	case len(abis)+len(dirs) == 0 && *repo == "":
		return usageErr("nothing to build: give --abi, --dir or --git with --tags")
	case (len(dirs) > 0 || *repo != "") && (len(opt.Headers) == 0 || len(opt.Types)+len(opt.Opaque)+len(opt.Consts) == 0):
		return usageErr("header trees need --header and at least one --type, --opaque or --const (or a --surface file)")
	}
	var ins []ranges.Input
	for _, kv := range abis {
		v, p, ok := strings.Cut(kv, "=")
		if !ok || p == "" {
			return usageErr(fmt.Sprintf("--abi %q: want VERSION=FILE", kv))
		}
		ins = append(ins, ranges.Input{Version: v, File: p})
	}
	for _, kv := range dirs {
		v, p, ok := strings.Cut(kv, "=")
		if !ok || p == "" {
			return usageErr(fmt.Sprintf("--dir %q: want VERSION=DIR", kv))
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return env.sayf("ranges build", "--dir %s: not a directory", p)
		}
		ins = append(ins, ranges.Input{Version: v, Dir: p})
	}
	if *repo != "" {
		g, err := ranges.GitTags(ctx, *repo, *tags)
		if err != nil {
			return env.say("ranges build", tagsMessage(err))
		}
		ins = append(ins, g...)
	}
	if err := ranges.CheckInputs(ins); err != nil {
		return env.say("ranges build", err)
	}
	ranges.SortInputs(ins)
	b := rangesBuilder(env, opt, *noCache)
	b.Jobs = *jobs
	show, done := progress(env)
	b.Progress = func(n, total int) {
		const width = 30
		fill := width * n / total
		show("[%s%s] %d/%d versions", strings.Repeat("#", fill), strings.Repeat(".", width-fill), n, total)
	}
	res := b.Build(ctx, ins)
	done()
	if ctx.Err() != nil {
		return rangesInterrupted(env, "build", res, opt, f)
	}
	code := exitOK
	for _, r := range res {
		if r.Note != "" {
			env.sayf("ranges build", "version %s: %s", r.Version, r.Note)
		}
		if r.Warning != "" {
			env.sayf("ranges build", "version %s: %s", r.Version, r.Warning)
			code = exitError
		}
		if r.Err != nil {
			env.sayf("ranges build", "version %s: %s", r.Version, cleanLines(strings.TrimSpace(r.Err.Error())))
			code = exitError
		}
	}
	t, err := ranges.NewTable(opt, res)
	if err != nil {
		return env.say("ranges build", err)
	}
	if *title == "" {
		*title = "ABI ranges"
		if len(opt.Types) > 0 {
			*title += " of " + strings.Join(opt.Types, ", ")
		}
	}
	if c := writeTable(env, t, f, *out, *goPkg, *title); c != exitOK {
		return c
	}
	return code
}

// writeTable writes t in format f to path (stdout when empty), atomically
// for a file.
func writeTable(env *cmdEnv, t *table.Table, f report.Format, path, goPkg, title string) int {
	write := func(w io.Writer) error { return ranges.Write(w, t, f, goPkg, title) }
	var err error
	if path == "" {
		err = write(env.stdout)
	} else {
		var b bytes.Buffer
		if err = write(&b); err == nil {
			err = atomicfile.WriteFile(path, b.Bytes(), 0o644)
		}
	}
	if err != nil {
		return env.say("ranges", err)
	}
	return exitOK
}

func readTable(env *cmdEnv, cmd, path string) (*table.Table, bool) {
	t, err := table.Read(path)
	if err == nil {
		_, err = ranges.ABIs(t)
		if err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}
	if err != nil {
		env.say("ranges "+cmd, err)
		return nil, false
	}
	return t, true
}

func runRangesLookup(env *cmdEnv, args []string) int {
	fs := newFlags(env, "ranges lookup", "TABLE VERSION [--format text|json]")
	format := fs.String("format", "text", "output `format`: text or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	f, ferr := report.ParseFormat(*format, report.Text, report.JSON)
	if ferr != nil || len(pos) != 2 {
		if ferr != nil {
			env.say("ranges lookup", ferr)
		}
		fs.Usage()
		return exitError
	}
	t, ok := readTable(env, "lookup", pos[0])
	if !ok {
		return exitError
	}
	a, err := t.Lookup(pos[1])
	if err != nil {
		return env.say("ranges lookup", err)
	}
	msg := a.Message
	if f == report.JSON {
		if err := report.WriteJSON(env.stdout, a); err != nil {
			return exitError
		}
	} else if a.Covered {
		fmt.Fprintln(env.stdout, msg)
	}
	if !a.Covered {
		if f != report.JSON {
			fmt.Fprintln(env.stderr, msg)
		}
		return exitViolation
	}
	return exitOK
}

func runRangesAdd(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "ranges add", "TABLE VERSION INPUT | --git REPO TABLE TAG  (INPUT: ABI JSON, ELF or a header tree; trees and tags are read with the table's header options unless given)")
	var hf headerFlags
	hf.register(fs)
	repo := fs.String("git", "", "read the version from the tag of the same name in git repository `REPO`")
	noCache := fs.Bool("no-cache", false, "neither read nor write the ABI cache")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if *repo != "" && len(pos) == 2 {
		pos = append(pos, "")
	}
	if len(pos) != 3 || *repo != "" && pos[2] != "" {
		fs.Usage()
		return exitError
	}
	path, version, input := pos[0], pos[1], pos[2]
	if err := symver.Check(version); err != nil {
		return env.say("ranges add", err)
	}
	t, ok := readTable(env, "add", path)
	if !ok {
		return exitError
	}
	var in ranges.Input
	if *repo != "" {
		in = ranges.Input{Version: version, Repo: *repo, Rev: version}
	} else {
		fi, err := os.Stat(input)
		if err != nil {
			return env.say("ranges add", err)
		}
		in = ranges.Input{Version: version, File: input}
		if fi.IsDir() {
			in = ranges.Input{Version: version, Dir: input}
		}
	}
	var opt ranges.Options
	if in.File == "" {
		given := ranges.Options{CC: hf.cc, Arch: hf.arch}
		if hf.set() {
			if given, err = hf.options(); err != nil {
				return env.say("ranges add", err)
			}
		}
		var note string
		if opt, note, err = ranges.AddOptions(t, path, in, given, hf.set()); err != nil {
			return env.say("ranges add", err)
		}
		if note != "" {
			env.sayf("ranges add", "note: %s (a table never chooses the program to run; give --cc or --target-arch to choose)", note)
		}
	}
	res := rangesBuilder(env, opt, *noCache).Build(ctx, []ranges.Input{in})[0]
	if ctx.Err() != nil {
		return env.sayf("ranges add", "incomplete: interrupted before version %s was built; the table is unchanged", version)
	}
	if res.Err != nil {
		return env.sayf("ranges add", "version %s: %s", version, cleanLines(strings.TrimSpace(res.Err.Error())))
	}
	if err := ranges.Add(t, ranges.Version{Name: version, ABI: res.ABI}); err != nil {
		return env.say("ranges add", err)
	}
	if c := writeTable(env, t, report.JSON, path, "", ""); c != exitOK {
		return c
	}
	a, _ := t.Lookup(version)
	fmt.Fprintf(env.stdout, "added %s: %d ranges\n", t.Describe(a), len(t.Ranges))
	if res.Warning != "" {
		return env.sayf("ranges add", "version %s: %s", version, res.Warning)
	}
	return exitOK
}

func runRangesShow(env *cmdEnv, args []string) int {
	fs := newFlags(env, "ranges show", "TABLE [--format text|json|go|html]")
	format := fs.String("format", "text", "output `format`: text, json, go or html")
	goPkg := fs.String("go-package", "abiranges", "package `NAME` of --format go")
	title := fs.String("title", "ABI ranges", "page `TITLE` of --format html")
	out := fs.String("o", "", "write to `FILE` instead of stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	f, ferr := rangesFormat(outputFormat(fs, *format, *out))
	if ferr != nil || len(pos) != 1 {
		if ferr != nil {
			env.say("ranges show", ferr)
		}
		fs.Usage()
		return exitError
	}
	t, ok := readTable(env, "show", pos[0])
	if !ok {
		return exitError
	}
	return writeTable(env, t, f, *out, *goPkg, *title)
}

// tagsMessage says a ranges.TagsError with the flag that gave the
// pattern.
func tagsMessage(err error) string {
	var te *ranges.TagsError
	if !errors.As(err, &te) {
		return err.Error()
	}
	switch {
	case te.Repo == "":
		return fmt.Sprintf("--tags '%s': %v", te.Pattern, te.Err)
	case te.Tag != "":
		return fmt.Sprintf("%s: tag %s matches --tags '%s' but is not a version: %v", te.Repo, te.Tag, te.Pattern, te.Err)
	}
	return fmt.Sprintf("%s: no tag matches --tags '%s'", te.Repo, te.Pattern)
}

// rangesInterrupted ends a build that was cut short: it says how far it
// got, never writes the table file, and in JSON writes what was built
// with "incomplete": true.
func rangesInterrupted(env *cmdEnv, cmd string, res []ranges.Result, opt ranges.Options, f report.Format) int {
	kept := ranges.Finished(res)
	env.sayf("ranges "+cmd, "incomplete: interrupted after %d of the %d versions found; no table written", len(kept), len(res))
	if f == report.JSON {
		t, err := ranges.NewTable(opt, kept)
		if err == nil {
			t.Incomplete = true
			t.WriteJSON(env.stdout)
		}
	}
	return exitError
}
