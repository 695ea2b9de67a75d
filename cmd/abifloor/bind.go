package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/report"
)

// screenful is how many symbols the text lists per file without -v.
const screenful = 20

func runBind(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "bind", "[--dlopen LIB]... [--sysroot DIR | --image IMAGE] [--library-path DIRS] [--env] [--tree] [-v] [--format text|json|github|sarif|junit] [--strict] PATH...")
	var (
		dlopen          multiFlag
		format, sysroot string
		image, libPath  string
		cache           string
		maxMem          int64
		jobs            int
	)
	fs.Var(&dlopen, "dlopen", "a library the program dlopen()s with RTLD_GLOBAL (repeatable)")
	fs.StringVar(&format, "format", "text", "output format: text|json|github|sarif|junit")
	fs.StringVar(&sysroot, "sysroot", "", "an image root: the PATHs, libraries, ld.so.cache and links are all resolved inside it, as under chroot (a relative PATH is relative to the root, unless it already names a file inside the root from the working directory)")
	fs.StringVar(&image, "image", "", "a container image (an OCI layout directory or a `docker save` tarball), read in place: its layers applied, its programs (those on its PATH, or the PATHs named inside it) audited against its own libraries and ld.so.cache")
	fs.Int64Var(&maxMem, "max-memory", bind.DefaultImageMemory>>20, "with --image: the MiB of ELF files held in memory at most")
	fs.StringVar(&libPath, "library-path", "", "LD_LIBRARY_PATH to assume (colon-separated; paths inside the image with --sysroot)")
	useEnv := fs.Bool("env", false, "also use LD_LIBRARY_PATH from the environment")
	follow := fs.Bool("follow", false, "follow symbolic links inside directories")
	fs.StringVar(&cache, "ld-cache", "", "ld.so.cache to read (default: /etc/ld.so.cache of the image; with --image, a path inside the image)")
	fs.IntVar(&jobs, "j", 0, "files audited in parallel (default 2×CPUs)")
	quiet := fs.Bool("q", false, "print failures and warnings only, not the files that load")
	verbose := fs.Bool("v", false, fmt.Sprintf("list every unresolved symbol of a file (without -v, the first %d)", screenful))
	tree := fs.Bool("tree", false, "show the libraries each file loads as a tree, each under the object that needs it, as lddtree does")
	dm := fs.Bool("demangle", false, "write C++ symbol names demangled")
	strict := fs.Bool("strict", false, "a lazily bound symbol no loaded library provides fails (exit 1) instead of warning")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	f, err := report.ParseFormat(format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit)
	if err == nil && image != "" && sysroot != "" {
		err = errors.New("--image and --sysroot exclude each other")
	}
	if err != nil {
		fmt.Fprintln(env.stderr, "abifloor bind:", err)
		return exitError
	}
	if len(paths) == 0 && image == "" {
		return usageError(fs, "missing PATH...: the programs and libraries to audit (or --image IMAGE)")
	}
	opt := bind.Options{Sysroot: sysroot, CacheFile: cache, Dlopen: dlopen, Follow: *follow, Workers: jobs, Tree: *tree}
	if libPath != "" {
		opt.LibraryPath = strings.Split(libPath, ":")
	}
	if v := env.getenv("LD_LIBRARY_PATH"); *useEnv && v != "" {
		opt.LibraryPath = append(opt.LibraryPath, strings.Split(v, ":")...)
	}
	if *dm {
		opt.Demangle = func(s string) string { return demangle.Filter(s) }
	}
	if sysroot != "" {
		if opt.Sysroot, err = bindSysroot(sysroot, paths); err != nil {
			fmt.Fprintln(env.stderr, "abifloor bind:", report.Clean(err.Error()))
			return exitError
		}
	}
	if image != "" {
		if opt.Image, err = bind.LoadImage(ctx, image, maxMem<<20, cache); err != nil {
			fmt.Fprintln(env.stderr, "abifloor bind: --image:", report.Clean(err.Error()))
			return exitError
		}
		for _, p := range opt.Image.Problems {
			fmt.Fprintf(env.stderr, "abifloor bind: warning: %s!%s\n", report.Clean(image), report.Clean(p))
		}
	} else if err := notArchives(paths); err != nil {
		fmt.Fprintln(env.stderr, "abifloor bind:", err)
		return exitError
	}
	show, done := progress(env)
	opt.Progress = func(files int64) { show("%d files", files) }
	res := bind.New(opt).Audit(ctx, paths)
	done() // before the first report, which may go to the same terminal
	switch f {
	case report.JSON:
		report.WriteJSON(env.stdout, res)
	case report.SARIF:
		writeBindSARIF(env.stdout, res, res.Warnings, *strict)
	case report.JUnit:
		writeBindJUnit(env.stdout, res, res.Warnings, *strict)
	case report.GitHub:
		writeBindGitHub(env.stdout, res, *strict)
	default:
		writeBindText(env, res, bindText{quiet: *quiet, all: *verbose, tree: *tree, strict: *strict})
	}
	switch {
	case res.Incomplete:
		fmt.Fprintf(env.stderr, "abifloor bind: incomplete: interrupted after %d of the %d files found\n", len(res.Files), res.Found)
		return exitError
	case len(res.Files) == 0 && image != "":
		fmt.Fprintf(env.stderr, "abifloor bind: nothing to audit: no ELF program in %s\n", report.Clean(bindWhere(image, paths, opt.Image)))
		return exitError
	case len(res.Files) == 0:
		fmt.Fprintf(env.stderr, "abifloor bind: nothing to audit: no ELF file in %s\n", report.Clean(strings.Join(paths, " ")))
		return exitError
	case res.Errors() > 0:
		return exitError
	case res.Fails(*strict):
		return exitViolation
	}
	return exitOK
}

// bindSysroot checks the image root and maps the paths named on the
// command line inside it, as chroot would see them.
func bindSysroot(sysroot string, paths []string) (string, error) {
	root, err := filepath.Abs(sysroot)
	if err != nil {
		return "", err
	}
	// A missing image root would make every library "not found": an
	// error in the command line, not a verdict on the binary.
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s: not a directory", root)
		}
		return "", fmt.Errorf("--sysroot: %w", err)
	}
	for i, p := range paths {
		if paths[i], err = bind.ArgPath(root, p); err != nil {
			return "", err
		}
	}
	return root, nil
}

// bindWhere names what an image audit looked in: the paths inside it, or
// its PATH.
func bindWhere(image string, paths []string, img *bind.Image) string {
	if len(paths) > 0 {
		return image + "!" + strings.Join(paths, " ")
	}
	return image + " (its PATH: " + strings.Join(img.Path, ":") + ")"
}

// bindText are the choices of the text report.
type bindText struct{ quiet, all, tree, strict bool }

func writeBindText(env *cmdEnv, res *bind.Result, opt bindText) {
	p := report.Painter{On: report.UseColor(env.tty, env.getenv)}
	w := env.stdout
	warned := map[string]bool{}
	for _, l := range res.Warnings {
		warned[l.Path] = true
	}
	for _, fr := range res.Files {
		if opt.quiet && fr.Error == nil && !fr.DiesAtStart && len(fr.DlopenMissing) == 0 && fr.PLTNone == 0 && fr.HostSymbols == 0 && !warned[fr.Path] {
			continue
		}
		name := p.Bold(report.Clean(fr.Path))
		switch {
		case fr.Error != nil && fr.Arch == "":
			fmt.Fprintf(w, "%s: %s\n", report.Clean(fr.Path), p.Red("error: "+report.Clean(fr.ErrorMessage())))
			continue
		case fr.Kind == elfx.DebugInfo:
			fmt.Fprintf(w, "%s: %s\n", name, "debug info (a separate debug file): never run, not audited")
			continue
		case fr.Kind.Static():
			fmt.Fprintf(w, "%s: %s\n  %s: no dynamic loader, nothing to bind\n", name, p.Green("loads"), fr.Kind)
			continue
		}
		verdict := p.Green("loads")
		switch {
		case fr.DiesAtStart:
			verdict = p.Red("dies at start: " + report.Clean(fr.Reason))
		case fr.HostSymbols > 0:
			verdict = p.Yellow(report.Clean(fr.Reason))
		}
		mode := "lazy binding"
		if fr.BindNow {
			mode = "BIND_NOW"
			if fr.Go {
				mode += " (Go linker)"
			}
		}
		fmt.Fprintf(w, "%s: %s\n  %s, RELRO %s", name, verdict, mode, fr.Relro)
		if fr.Interp != "" {
			fmt.Fprintf(w, ", interpreter %s", report.Clean(fr.Interp))
		}
		fmt.Fprintln(w)
		if fr.Message != "" {
			fmt.Fprintf(w, "  ld.so: %s\n", report.Clean(fr.Message))
		}
		if opt.tree {
			writeTree(w, fr.Deps)
		} else {
			for _, m := range fr.MissingLibraries {
				fmt.Fprintf(w, "  %s => not found\n", report.Clean(m))
			}
		}
		for _, v := range fr.ViaHost {
			if v.Host != "" {
				fmt.Fprintf(w, "  %s => %s (found via %s)\n", report.Clean(v.Name), report.Clean(v.Path), report.Clean(v.Host))
			} else {
				fmt.Fprintf(w, "  %s => %s %s\n", report.Clean(v.Name), report.Clean(v.Path), p.Yellow("(note: found only via its host: it lies beside the library, not on its own search path)"))
			}
		}
		for _, sk := range fr.Skipped {
			fmt.Fprintf(w, "  skipped %s\n", report.Clean(sk))
		}
		listed := 0
		for _, u := range fr.Unresolved {
			if listed++; listed > screenful && !opt.all {
				break
			}
			fmt.Fprintf(w, "  %-6s %s%s\n", u.Binding, symName(u), refDetail(u))
		}
		if fr.PLTNone > 0 && !fr.DiesAtStart {
			fmt.Fprintf(w, "  %s\n", p.Yellow(fr.PLTNoneWarning()))
		}
		for _, u := range fr.DlopenMissing {
			if listed++; listed > screenful && !opt.all {
				break
			}
			fmt.Fprintf(w, "  %s\n", p.Red("would fail at first call to "+symName(u)+": no --dlopen library defines it"))
		}
		if n := len(fr.Unresolved) + len(fr.DlopenMissing); n > screenful && !opt.all {
			fmt.Fprintf(w, "  … and %d more symbols (-v lists them all)\n", n-screenful)
		}
		if fr.Error != nil {
			fmt.Fprintf(w, "  %s\n", p.Red("error: "+report.Clean(fr.ErrorMessage())))
		}
	}
	for _, l := range res.Warnings {
		fmt.Fprintf(w, "%s %s: %s\n", strictLabel(p, opt.strict), report.Clean(l.Path), report.Clean(l.Message))
	}
}

// writeTree prints the libraries of a load as lddtree does: each under
// the object that needs it, and a library's own needs under the object
// that loaded it (the first to need it in load order, breadth first).
func writeTree(w io.Writer, deps []bind.ObjectDeps) {
	byObj := map[string][]bind.Dep{}
	for _, od := range deps {
		byObj[od.Object] = od.Needed
	}
	loader := map[string]string{"": ""}
	for queue := []string{""}; len(queue) > 0; queue = queue[1:] {
		for _, d := range byObj[queue[0]] {
			if _, seen := loader[d.Path]; d.Path != "" && !seen {
				loader[d.Path] = queue[0]
				queue = append(queue, d.Path)
			}
		}
	}
	var walk func(obj string, depth int)
	walk = func(obj string, depth int) {
		for _, d := range byObj[obj] {
			at := "not found"
			if d.Path != "" {
				at = d.Path
			}
			fmt.Fprintf(w, "%*s%s => %s\n", 2+4*depth, "", report.Clean(d.Name), report.Clean(at))
			if d.Path != "" && d.Path != obj && loader[d.Path] == obj {
				walk(d.Path, depth+1)
			}
		}
	}
	walk("", 0)
}

// bindWarning is a file that dies at the first call to a lazily bound
// symbol; the other bind helpers below are what reports.go writes.
type bindWarning = bind.Warning

func pltNoneWarning(fr bind.FileReport) string   { return fr.PLTNoneWarning() }
func hostOnly(fr bind.FileReport) []bind.HostDep { return fr.HostOnly() }
func hostOnlyNote(v bind.HostDep) string         { return v.Note() }

func symName(u bind.Unresolved) string { return report.Clean(u.SymbolName()) }

func refDetail(u bind.Unresolved) string {
	var parts []string
	if u.Relocation != "" {
		parts = append(parts, u.Relocation)
	}
	if u.Object != "" {
		parts = append(parts, "in "+u.Object)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + report.Clean(strings.Join(parts, ", ")) + ")"
}

func writeBindGitHub(w io.Writer, res *bind.Result, strict bool) {
	for _, fr := range res.Files {
		switch {
		case fr.Error != nil:
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "abifloor bind", Message: fr.ErrorMessage()})
		case fr.DiesAtStart:
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "dies at start", Message: fr.Message})
		}
		if fr.PLTNone > 0 && !fr.DiesAtStart {
			report.WriteAnnotation(w, report.Annotation{Level: "warning", File: fr.Path, Title: "PLT relocations of type NONE", Message: fr.PLTNoneWarning()})
		}
		for _, v := range fr.HostOnly() {
			report.WriteAnnotation(w, report.Annotation{Level: "notice", File: fr.Path, Title: "found only via its host", Message: v.Note()})
		}
		for _, u := range fr.DlopenMissing {
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "dlopen library lacks a symbol", Message: "would fail at first call to " + symName(u)})
		}
	}
	for _, l := range res.Warnings {
		report.WriteAnnotation(w, report.Annotation{Level: strictLevel(strict), File: l.Path, Title: "lazily bound symbols nothing provides", Message: l.Message})
	}
}
