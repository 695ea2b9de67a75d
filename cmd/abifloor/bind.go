package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/report"
)

func runBind(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "bind", "[--dlopen LIB]... [--host PROGRAM] [--sysroot DIR | --image IMAGE] [--library-path DIRS] [--env] [--bind-now] [--tree] [-v] [--format text|json|github|sarif|junit] [--strict] PATH...")
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
	hostProg := fs.String("host", "", "a program that loads the libraries named (node for an N-API addon, python3 for an extension): their symbols and libraries are resolved against its load first")
	fs.StringVar(&sysroot, "sysroot", "", "an image root: the PATHs, libraries, ld.so.cache and links are all resolved inside it, as under chroot (a relative PATH is relative to the root, unless it already names a file inside the root from the working directory)")
	fs.StringVar(&image, "image", "", "a container image (an OCI layout directory or a `docker save` tarball), read in place: its layers applied, its programs (those on its PATH, or the PATHs named inside it) audited against its own libraries and ld.so.cache")
	fs.Int64Var(&maxMem, "max-memory", bind.DefaultImageMemory>>20, "with --image: the MiB of ELF files held in memory at most")
	fs.StringVar(&libPath, "library-path", "", "LD_LIBRARY_PATH to assume (colon-separated; paths inside the image with --sysroot)")
	useEnv := fs.Bool("env", false, "also use LD_LIBRARY_PATH and LD_BIND_NOW from the environment")
	follow := fs.Bool("follow", false, "follow symbolic links inside directories")
	fs.StringVar(&cache, "ld-cache", "", "ld.so.cache to read (default: /etc/ld.so.cache of the image; with --image, a path inside the image)")
	fs.IntVar(&jobs, "j", 0, "files audited in parallel (default 2×CPUs)")
	quiet := fs.Bool("q", false, "print failures and warnings only, not the files that load")
	verbose := fs.Bool("v", false, fmt.Sprintf("list every unresolved symbol of a file (without -v, the first %d)", bind.Screenful))
	tree := fs.Bool("tree", false, "show the libraries each file loads as a tree, each under the object that needs it, as lddtree does")
	dm := fs.Bool("demangle", false, "write C++ symbol names demangled")
	strict := fs.Bool("strict", false, "a lazily bound symbol no loaded library provides fails (exit 1) instead of warning")
	bindNow := fs.Bool("bind-now", false, "audit as if linked with -z now (or run with LD_BIND_NOW=1): a lazily bound symbol no library loaded at start provides kills the program before main")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	f, err := report.ParseFormat(format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit)
	if err == nil && image != "" && sysroot != "" {
		err = errors.New("--image and --sysroot exclude each other")
	}
	if err != nil {
		return env.say("bind", errText(err))
	}
	if len(paths) == 0 && image == "" {
		return usageError(fs, "missing PATH...: the programs and libraries to audit (or --image IMAGE)")
	}
	// An audit keeps every library it parsed until the end: some 110 MB
	// for a whole /usr. Past the run's 48 MiB soft limit the collector
	// would run without pause and take half the CPU; at 192 MiB it keeps
	// its usual pace, and garbage is still bounded.
	if env.getenv == nil || env.getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limits.HeavyMemory))
	}
	opt := bind.Options{Sysroot: sysroot, CacheFile: cache, Dlopen: dlopen, Follow: *follow, Workers: jobs, Tree: *tree, BindNow: *bindNow, Host: *hostProg}
	if libPath != "" {
		opt.LibraryPath = strings.Split(libPath, ":")
	}
	if v := env.getenv("LD_LIBRARY_PATH"); *useEnv && v != "" {
		opt.LibraryPath = append(opt.LibraryPath, strings.Split(v, ":")...)
	}
	// ld.so binds everything at start for any non-empty LD_BIND_NOW.
	if *useEnv && env.getenv("LD_BIND_NOW") != "" {
		opt.BindNow = true
	}
	if *dm {
		opt.Demangle = func(s string) string {
			if d := abiread.Demangle(s); d != "" {
				return d
			}
			return s
		}
	}
	if sysroot != "" {
		if opt.Sysroot, err = bindSysroot(sysroot, paths); err != nil {
			return env.say("bind", report.Clean(err.Error()))
		}
		if opt.Host != "" {
			if opt.Host, err = bind.ArgPath(opt.Sysroot, opt.Host); err != nil {
				return env.say("bind", "--host:", report.Clean(err.Error()))
			}
		}
	}
	if image != "" {
		if opt.Image, err = bind.LoadImage(ctx, image, maxMem<<20, cache); err != nil {
			return env.say("bind", "--image:", report.Clean(err.Error())+limitHint(err))
		}
		for _, p := range opt.Image.Problems {
			env.sayf("bind", "warning: %s!%s", report.Clean(image), report.Clean(p))
		}
		if n := opt.Image.MoreProblems; n > 0 {
			env.sayf("bind", "warning: %s: and %d more unreadable members", report.Clean(image), n)
		}
	} else if err := notArchives(paths); err != nil {
		return env.say("bind", errText(err))
	}
	if sysroot == "" && image == "" {
		if opt.CrossPrefix = crossPrefix(paths); opt.CrossPrefix != "" {
			env.sayf("bind", "note: these files are not %s: their loader and libraries are looked for under Debian's cross root %s first, as qemu-user -L %s loads them",
				elfx.HostArch(), opt.CrossPrefix, opt.CrossPrefix)
		}
	}
	show, done := progress(env)
	opt.Progress = func(files int64) { show("%d files", files) }
	res := bind.New(opt).Audit(ctx, paths)
	done() // before the first report, which may go to the same terminal
	if sysroot == "" && image == "" && opt.CrossPrefix == "" {
		foreignArchNote(env, res)
	}
	switch f {
	case report.JSON:
		report.WriteJSON(env.stdout, res)
	case report.SARIF:
		res.WriteSARIF(env.stdout, buildVersion(), *strict)
	case report.JUnit:
		res.WriteJUnit(env.stdout, *strict)
	case report.GitHub:
		res.WriteGitHub(env.stdout, *strict)
	default:
		res.WriteText(env.stdout, bind.TextOptions{Quiet: *quiet, All: *verbose, Tree: *tree, Strict: *strict, Color: report.UseColor(env.tty, env.getenv)})
	}
	switch {
	case res.Incomplete:
		return env.sayf("bind", "incomplete: interrupted after %d of the %d files found", len(res.Files), res.Found)
	case len(res.Files) == 0 && image != "":
		return env.sayf("bind", "nothing to audit: no ELF program in %s", report.Clean(bindWhere(image, paths, opt.Image)))
	case len(res.Files) == 0:
		return env.sayf("bind", "nothing to audit: no ELF file in %s", report.Clean(strings.Join(paths, " ")))
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

// foreignArchNote says, once per architecture, that files of another
// architecture than the host's were audited against the host's root,
// which holds no loader or library of theirs: "libm.so.6: cannot open
// shared object file" is then the host's answer, not the target's. It
// names the root to use instead: the Debian cross root /usr/TRIPLET
// (libc6-dev-arm64-cross and its kin) when it is there.
func foreignArchNote(env *cmdEnv, res *bind.Result) {
	host := elfx.HostArch()
	said := map[string]bool{}
	for _, f := range res.Files {
		if f.Arch == "" || f.Arch == host || said[f.Arch] || (!f.DiesAtStart && len(f.MissingLibraries) == 0) {
			continue
		}
		said[f.Arch] = true
		hint := "audit them in a root of theirs with --sysroot DIR or --image IMAGE"
		if root := debianCrossRoot(f.Arch); root != "" {
			hint = "Debian's cross root " + root + " is one: copy them into it and run bind --sysroot " + root
		}
		env.sayf("bind", "note: %s is %s and this host is %s: its loader and libraries were looked for in this host's root, which has none of %s; %s",
			report.Clean(f.Path), report.Clean(f.Arch), host, report.Clean(f.Arch), hint)
	}
}

// crossPrefix is Debian's cross root /usr/TRIPLET for the files named,
// when every one is an ELF file of one architecture other than the
// host's and that root is there; "" otherwise (a tree, a mix, or no such
// root: foreignArchNote then says what to do).
func crossPrefix(paths []string) string {
	arch := ""
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return ""
		}
		f, err := elfx.Open(p)
		if err != nil {
			return ""
		}
		a := f.Arch()
		f.Close()
		if a == "" || a == elfx.HostArch() || (arch != "" && a != arch) {
			return ""
		}
		arch = a
	}
	return debianCrossRoot(arch)
}

// debianCrossRoot is /usr/TRIPLET when it holds arch's libraries (Debian's
// libc6-dev-arm64-cross and its kin), else "".
func debianCrossRoot(arch string) string {
	t := elfx.ArchTriple(arch)
	if t == "" {
		return ""
	}
	root := filepath.Join("/usr", t)
	if st, err := os.Stat(filepath.Join(root, "lib")); err != nil || !st.IsDir() {
		return ""
	}
	return root
}
