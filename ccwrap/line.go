package ccwrap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// ccLine is what abifloor cc needs to know of a compiler command line: does
// it run the link editor, and which file does the link write. It reads the
// line as gcc's driver does; when the output cannot be told, err says why
// and cc fails closed rather than prove some other file.
type ccLine struct {
	link   bool   // the compiler will run the link editor
	output string // the file the link writes
	// shared: -shared; relocatable: -r; static: -static or -static-pie;
	// nostart: no start files (-nostartfiles, -nostdlib, -nolibc).
	shared, relocatable, static, nostart bool
	// pthread: -pthread or -lpthread (the stubs' libpthread is loaded).
	pthread bool
	// libDirs are the -L directories, in order.
	libDirs []string
	// libFiles are the shared libraries named by a path (libtool's
	// ./.libs/libpcre2-posix.so), in order.
	libFiles []string
	err      error
}

// executable reports whether the link makes a program with the usual start
// files, which the constructor wrapper of old targets applies to.
func (l *ccLine) executable() bool {
	return l.link && !l.shared && !l.relocatable && !l.static && !l.nostart
}

// preloads reports whether the loader proof will bind the link's output
// against the stubs, which Run then reads while the compiler runs: an
// output written to a file (not /dev/null), neither -r nor -static.
func (l *ccLine) preloads() bool {
	return l.link && !l.relocatable && !l.static && l.output != os.DevNull
}

// ccSepArg are gcc (and clang) options whose argument is the next word.
var ccSepArg = map[string]bool{
	"-o": true, "-x": true, "-I": true, "-L": true, "-l": true, "-D": true, "-U": true,
	"-include": true, "-imacros": true, "-isystem": true, "-iquote": true, "-idirafter": true,
	"-iprefix": true, "-iwithprefix": true, "-iwithprefixbefore": true, "-isysroot": true,
	"-imultilib": true, "-MF": true, "-MT": true, "-MQ": true, "-Xlinker": true,
	"-Xassembler": true, "-Xpreprocessor": true, "-Xclang": true, "-u": true, "-T": true,
	"-z": true, "-e": true, "-aux-info": true, "--param": true, "-B": true, "-A": true,
	"-wrapper": true, "--sysroot": true, "-target": true, "-dumpdir": true, "-dumpbase": true,
	"-dumpbase-ext": true, "--output": true, "-arch": true, "--include": true,
}

// ccStop are options after which the driver runs no link: it preprocesses,
// compiles or assembles only, or prints something and exits.
var ccStop = map[string]bool{
	"-c": true, "-S": true, "-E": true, "-M": true, "-MM": true, "-fsyntax-only": true,
	"--version": true, "--help": true, "--target-help": true, "-###": true,
	"-dumpmachine": true, "-dumpversion": true, "-dumpfullversion": true, "-dumpspecs": true,
	"--compile": true, "--assemble": true, "--preprocess": true, "--dependencies": true,
	"--user-dependencies": true,
}

// parseCCLine reads a compiler command line (args after the compiler's
// name). Response files (@file) are read as gcc reads them; one that cannot
// be read stays a plain word, as in gcc.
func parseCCLine(args []string) ccLine {
	words, err := expandResponse(args, 0, new(responseBudget))
	l := ccLine{output: "a.out", err: err}
	if err != nil {
		return l
	}
	var ldArgs []string
	inputs := 0
	for i := 0; i < len(words); i++ {
		a := words[i]
		next := func() (string, bool) {
			if i+1 < len(words) {
				i++
				return words[i], true
			}
			return "", false
		}
		switch {
		case ccStop[a] || strings.HasPrefix(a, "-print-") || strings.HasPrefix(a, "--print-") ||
			strings.HasPrefix(a, "--help="):
			return ccLine{err: nil}
		case a == "-o" || a == "--output":
			v, ok := next()
			if !ok {
				l.err = fmt.Errorf("%s without a file name", a)
				return l
			}
			l.output = v
		case strings.HasPrefix(a, "--output="):
			l.output = a[len("--output="):]
		case strings.HasPrefix(a, "-o"):
			l.output = a[2:]
		case a == "-Xlinker":
			v, ok := next()
			if !ok {
				l.err = errors.New("-Xlinker without an argument")
				return l
			}
			ldArgs = append(ldArgs, v)
		case strings.HasPrefix(a, "-Wl,"):
			ldArgs = append(ldArgs, strings.Split(a[4:], ",")...)
		case a == "-shared":
			l.shared = true
		case a == "-r":
			l.relocatable = true
		case a == "-static" || a == "-static-pie":
			l.static = true
		case a == "-nostartfiles" || a == "-nostdlib" || a == "-nolibc":
			l.nostart = true
		case a == "-L":
			if v, ok := next(); ok {
				l.libDirs = append(l.libDirs, v)
			}
		case strings.HasPrefix(a, "-L"):
			l.libDirs = append(l.libDirs, a[2:])
		case a == "-pthread":
			l.pthread = true
		case a == "-l":
			if v, _ := next(); v == "pthread" {
				l.pthread = true
			}
			inputs++
		case strings.HasPrefix(a, "-l"):
			l.pthread = l.pthread || a == "-lpthread"
			inputs++
		case ccSepArg[a]:
			next()
		case a == "-":
			inputs++ // standard input, with -x
		case strings.HasPrefix(a, "-"):
		default:
			if isSharedName(a) {
				l.libFiles = append(l.libFiles, a)
			}
			inputs++
		}
	}
	if inputs == 0 {
		// gcc -v, gcc -Q --help=...: nothing to link.
		return ccLine{}
	}
	l.link = true
	// The link editor's own -o comes after the driver's on its command
	// line, so it wins.
	for i := 0; i < len(ldArgs); i++ {
		a := ldArgs[i]
		switch {
		case a == "-o" || a == "--output" || a == "-output":
			if i+1 >= len(ldArgs) {
				l.err = fmt.Errorf("linker option %s without a file name", a)
				return l
			}
			i++
			l.output = ldArgs[i]
		case strings.HasPrefix(a, "--output="):
			l.output = a[len("--output="):]
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			l.output = a[2:]
		case a == "-shared" || a == "-Bshareable":
			l.shared = true
		case a == "-r" || a == "--relocatable" || a == "-i":
			l.relocatable = true
		}
	}
	if l.output == "" {
		l.err = errors.New("empty output file name")
	}
	return l
}

// Bounds on response files: gcc nests them, a hostile one must not loop.
// Bytes alone do not bound the work: files that name small (or empty)
// files many times cost an open each, so the @file words are counted too,
// and stop where libiberty's expandargv stops ("too many @-files").
const (
	maxResponseDepth = 10
	maxResponseBytes = 4 << 20
	maxResponseFiles = 2000
)

// responseBudget is what one command line's response files have used.
type responseBudget struct {
	bytes int64
	files int
}

// expandResponse replaces each @file word by the words of file, as libiberty's
// expandargv does (whitespace separates, quotes group, backslash escapes).
func expandResponse(args []string, depth int, used *responseBudget) ([]string, error) {
	var out []string
	for _, a := range args {
		if len(a) < 2 || a[0] != '@' {
			out = append(out, a)
			continue
		}
		if depth >= maxResponseDepth {
			return nil, fmt.Errorf("response files nested more than %d deep at %s", maxResponseDepth, a)
		}
		if used.files++; used.files > maxResponseFiles {
			return nil, fmt.Errorf("more than %d @file words at %s", maxResponseFiles, a)
		}
		b, err := readResponse(a[1:], maxResponseBytes-used.bytes)
		if err != nil {
			if errors.Is(err, errTooBig) {
				return nil, fmt.Errorf("%s: response files larger than %d bytes", a[1:], maxResponseBytes)
			}
			out = append(out, a) // gcc keeps an unreadable @file as a word
			continue
		}
		used.bytes += int64(len(b))
		words, err := expandResponse(splitResponse(string(b)), depth+1, used)
		if err != nil {
			return nil, err
		}
		out = append(out, words...)
	}
	return out, nil
}

var errTooBig = errors.New("too big")

// readResponse reads a regular file of at most limit bytes; a FIFO or
// device is not opened for reading (O_NONBLOCK, then checked).
func readResponse(name string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooBig
	}
	return b, nil
}

func splitResponse(s string) []string {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote byte
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
