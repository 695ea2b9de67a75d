package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/report"
)

func runBind(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "bind", "[--dlopen LIB]... [--sysroot DIR | --image IMAGE] [--library-path DIRS] [--env] [--format text|json|github|sarif|junit] [--strict] PATH...")
	var (
		dlopen  multiFlag
		format  string
		sysroot string
		image   string
		maxMem  int64
		libPath string
		useEnv  bool
		follow  bool
		cache   string
		jobs    int
	)
	fs.Var(&dlopen, "dlopen", "a library the program dlopen()s with RTLD_GLOBAL (repeatable)")
	fs.StringVar(&format, "format", "text", "output format: text|json|github|sarif|junit")
	fs.StringVar(&sysroot, "sysroot", "", "an image root: the PATHs, libraries, ld.so.cache and links are all resolved inside it, as under chroot (a relative PATH is relative to the root, unless it already names a file inside the root from the working directory)")
	fs.StringVar(&image, "image", "", "a container image (an OCI layout directory or a `docker save` tarball), read in place: its layers applied, its programs (those on its PATH, or the PATHs named inside it) audited against its own libraries and ld.so.cache")
	fs.Int64Var(&maxMem, "max-memory", bind.DefaultImageMemory>>20, "with --image: the MiB of ELF files held in memory at most")
	fs.StringVar(&libPath, "library-path", "", "LD_LIBRARY_PATH to assume (colon-separated; paths inside the image with --sysroot)")
	fs.BoolVar(&useEnv, "env", false, "also use LD_LIBRARY_PATH from the environment")
	fs.BoolVar(&follow, "follow", false, "follow symbolic links inside directories")
	fs.StringVar(&cache, "ld-cache", "", "ld.so.cache to read (default: /etc/ld.so.cache of the image; with --image, a path inside the image)")
	fs.IntVar(&jobs, "j", 0, "files audited in parallel (default 2×CPUs)")
	quiet := fs.Bool("q", false, "print failures and warnings only, not the files that load")
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
	if err != nil || (len(paths) == 0 && image == "") {
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor bind:", err)
			return exitError
		}
		return usageError(fs, "missing PATH...: the programs and libraries to audit (or --image IMAGE)")
	}
	var lp []string
	if libPath != "" {
		lp = strings.Split(libPath, ":")
	}
	if v := env.getenv("LD_LIBRARY_PATH"); useEnv && v != "" {
		lp = append(lp, strings.Split(v, ":")...)
	}
	if sysroot != "" {
		if sysroot, err = filepath.Abs(sysroot); err != nil {
			fmt.Fprintln(env.stderr, "abifloor bind:", err)
			return exitError
		}
		// A missing image root would make every library "not found": an
		// error in the command line, not a verdict on the binary.
		if st, err := os.Stat(sysroot); err != nil || !st.IsDir() {
			if err == nil {
				err = fmt.Errorf("%s: not a directory", sysroot)
			}
			fmt.Fprintln(env.stderr, "abifloor bind: --sysroot:", report.Clean(err.Error()))
			return exitError
		}
	}
	if sysroot != "" {
		// The paths are inside the image too, as chroot would see them.
		for i, p := range paths {
			h, err := bind.ArgPath(sysroot, p)
			if err != nil {
				fmt.Fprintln(env.stderr, "abifloor bind:", report.Clean(err.Error()))
				return exitError
			}
			paths[i] = h
		}
	}
	var img *bind.Image
	if image != "" {
		if img, err = bind.LoadImage(ctx, image, maxMem<<20, cache); err != nil {
			fmt.Fprintln(env.stderr, "abifloor bind: --image:", report.Clean(err.Error()))
			return exitError
		}
		for _, p := range img.Problems {
			fmt.Fprintf(env.stderr, "abifloor bind: warning: %s!%s\n", report.Clean(image), report.Clean(p))
		}
	} else if err := notArchives(paths); err != nil {
		fmt.Fprintln(env.stderr, "abifloor bind:", err)
		return exitError
	}
	opt := bind.Options{Image: img, Sysroot: sysroot, LibraryPath: lp, CacheFile: cache, Dlopen: dlopen, Follow: follow, Workers: jobs}
	show, done := progress(env)
	defer done()
	opt.Progress = func(files int64) { show("%d files", files) }
	a := bind.New(opt)
	res := a.Audit(ctx, paths)
	if *dm {
		for i := range res.Files {
			for _, us := range [][]bind.Unresolved{res.Files[i].Unresolved, res.Files[i].DlopenMissing} {
				for j := range us {
					us[j].Name = demangle.Filter(us[j].Name)
				}
			}
		}
	}
	lazy := lazyWarnings(res, len(dlopen) > 0)
	switch f {
	case report.JSON:
		report.WriteJSON(env.stdout, struct {
			*bind.Result
			Warnings []bindWarning `json:"warnings"`
		}{res, lazy})
	case report.SARIF:
		writeBindSARIF(env.stdout, res, lazy, *strict)
	case report.JUnit:
		writeBindJUnit(env.stdout, res, lazy, *strict)
	case report.GitHub:
		writeBindGitHub(env, res)
		for _, w := range lazy {
			report.WriteAnnotation(env.stdout, report.Annotation{Level: strictLevel(*strict), File: w.Path, Title: "lazily bound symbols nothing provides", Message: w.Message})
		}
	default:
		writeBindText(env, res, *quiet, lazy)
		p := report.Painter{On: report.UseColor(env.tty, env.getenv)}
		for _, w := range lazy {
			fmt.Fprintf(env.stdout, "%s %s: %s\n", strictLabel(p, *strict), w.Path, w.Message)
		}
	}
	code := exitOK
	for _, fr := range res.Files {
		if fr.DiesAtStart || len(fr.DlopenMissing) > 0 {
			code = exitViolation
		}
	}
	if *strict && len(lazy) > 0 {
		code = exitViolation
	}
	for _, fr := range res.Files {
		if fr.Error != nil {
			code = exitError
		}
	}
	return code
}

func writeBindText(env *cmdEnv, res *bind.Result, quiet bool, lazy []bindWarning) {
	p := report.Painter{On: report.UseColor(env.tty, env.getenv)}
	w := env.stdout
	warned := map[string]bool{}
	for _, l := range lazy {
		warned[l.Path] = true
	}
	for _, fr := range res.Files {
		if quiet && fr.Error == nil && !fr.DiesAtStart && len(fr.DlopenMissing) == 0 && fr.PLTNone == 0 && fr.HostSymbols == 0 && !warned[fr.Path] {
			continue
		}
		if fr.Error != nil && fr.Arch == "" {
			fmt.Fprintf(w, "%s: %s\n", report.Clean(fr.Path), p.Red("error: "+report.Clean(fr.ErrorMessage())))
			continue
		}
		if fr.Kind == elfx.DebugInfo {
			fmt.Fprintf(w, "%s: %s\n", p.Bold(report.Clean(fr.Path)), "debug info (a separate debug file): never run, not audited")
			continue
		}
		if fr.Kind.Static() {
			fmt.Fprintf(w, "%s: %s\n", p.Bold(report.Clean(fr.Path)), p.Green("loads"))
			fmt.Fprintf(w, "  %s: no dynamic loader, nothing to bind\n", fr.Kind)
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
		fmt.Fprintf(w, "%s: %s\n", p.Bold(report.Clean(fr.Path)), verdict)
		fmt.Fprintf(w, "  %s, RELRO %s", mode, fr.Relro)
		if fr.Interp != "" {
			fmt.Fprintf(w, ", interpreter %s", report.Clean(fr.Interp))
		}
		fmt.Fprintln(w)
		if fr.Message != "" {
			fmt.Fprintf(w, "  ld.so: %s\n", report.Clean(fr.Message))
		}
		for _, m := range fr.MissingLibraries {
			fmt.Fprintf(w, "  %s => not found\n", report.Clean(m))
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
		for _, u := range fr.Unresolved {
			fmt.Fprintf(w, "  %-6s %s%s\n", u.Binding, symName(u), refDetail(u))
		}
		if fr.PLTNone > 0 && !fr.DiesAtStart {
			fmt.Fprintf(w, "  %s\n", p.Yellow(pltNoneWarning(fr)))
		}
		for _, u := range fr.DlopenMissing {
			fmt.Fprintf(w, "  %s\n", p.Red("would fail at first call to "+symName(u)+": no --dlopen library defines it"))
		}
		if fr.Error != nil {
			fmt.Fprintf(w, "  %s\n", p.Red("error: "+report.Clean(fr.ErrorMessage())))
		}
	}
}

// bindWarning is a file with lazily bound symbols that no loaded library
// provides: it starts, then dies at the first call to one of them.
type bindWarning struct {
	Path    string   `json:"path"`
	Message string   `json:"message"`
	Symbols []string `json:"symbols"`
}

// lazyWarnings lists, per file, the lazily bound symbols nothing loaded
// provides. A plugin's are its host's to provide.
func lazyWarnings(res *bind.Result, dlopen bool) []bindWarning {
	out := []bindWarning{}
	for _, fr := range res.Files {
		var syms []string
		// With --dlopen libraries, the lazily bound symbols they lack are
		// already failures (DlopenMissing).
		if !dlopen && !fr.Plugin {
			for _, u := range fr.Unresolved {
				if u.Binding == "lazy" {
					syms = append(syms, symName(u))
				}
			}
		}
		if len(syms) > 0 {
			out = append(out, bindWarning{Path: fr.Path, Symbols: syms,
				Message: fmt.Sprintf("%s lazily bound that no loaded library provides: the program dies at the first call to %s", plural(len(syms), "symbol"), strings.Join(syms[:min(len(syms), 5)], ", "))})
		}
	}
	return out
}

func symName(u bind.Unresolved) string {
	if u.Version != "" {
		return report.Clean(u.Name + "@" + u.Version)
	}
	return report.Clean(u.Name)
}

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

func writeBindGitHub(env *cmdEnv, res *bind.Result) {
	for _, fr := range res.Files {
		switch {
		case fr.Error != nil:
			report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", File: fr.Path, Title: "abifloor bind", Message: fr.ErrorMessage()})
		case fr.DiesAtStart:
			report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", File: fr.Path, Title: "dies at start", Message: fr.Message})
		}
		if fr.PLTNone > 0 && !fr.DiesAtStart {
			report.WriteAnnotation(env.stdout, report.Annotation{Level: "warning", File: fr.Path, Title: "PLT relocations of type NONE", Message: pltNoneWarning(fr)})
		}
		for _, v := range hostOnly(fr) {
			report.WriteAnnotation(env.stdout, report.Annotation{Level: "notice", File: fr.Path, Title: "found only via its host", Message: hostOnlyNote(v)})
		}
		for _, u := range fr.DlopenMissing {
			report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", File: fr.Path, Title: "dlopen library lacks a symbol",
				Message: "would fail at first call to " + symName(u)})
		}
	}
}

func pltNoneWarning(fr bind.FileReport) string {
	return fmt.Sprintf("%d PLT relocations of type NONE (linked with --unresolved-symbols=ignore-in-object-files, symbols not exported): calls through them crash", fr.PLTNone)
}

// hostOnly are the dependencies of fr found only beside it, through no
// program of the audit: its host's search path must find them.
func hostOnly(fr bind.FileReport) []bind.HostDep {
	var out []bind.HostDep
	for _, v := range fr.ViaHost {
		if v.Host == "" {
			out = append(out, v)
		}
	}
	return out
}

func hostOnlyNote(v bind.HostDep) string {
	return v.Name + " lies beside the library, not on its own search path: only a host program's search path finds it"
}
