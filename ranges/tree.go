package ranges

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/internal/input"
)

// A version's tree is a stranger's: a tag of someone's repository, an
// unpacked archive. Before the compiler runs, every include directory is
// walked and refused when it holds what would let the compiler out of the
// tree or stall it: a link that resolves outside (a tag's a.h linked to
// ~/.ssh/id_rsa; git archive recreates absolute links), a named pipe, a
// device or a socket (a FIFO hangs the compiler, /dev/zero feeds it a
// gigabyte), and an #include whose name, written in the header, is
// absolute or climbs out of the tree. Names the preprocessor computes
// (#include MACRO) are left to the compile's own confinement (abi's
// HeaderOptions.Root): under Landlock the compiler cannot open anything
// outside the tree and its own installation, and any file it read from
// outside is refused after. What it may open inside the tree is only
// files: the whole tree is walked for pipes and devices (noSpecial).

// TreeError is a version's tree that holds something refused.
type TreeError struct {
	Path string // relative to the version's tree
	Msg  string
}

func (e *TreeError) Error() string { return e.Path + ": " + e.Msg }

// maxTreeFiles bounds the files walked per version.
const maxTreeFiles = 1 << 20

// maxDirective is how much of a logical line is looked at for an
// #include: a name longer than PATH_MAX cannot be opened.
const maxDirective = 8 << 10

// tree is one version's tree being checked.
type tree struct {
	root string   // as given
	real string   // absolute and resolved
	incs []string // include directories, resolved
	n    int

	defines  map[string]dir // macros defined as a quoted or <> name
	computed []computed

	// known, when set, returns the directives of a regular file from its
	// metadata alone (objects.known): a file the build wrote itself from
	// a git blob it read then.
	known func(fs.FileInfo) ([]dir, bool)
}

func newTree(root string, incs []string) (*tree, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	t := &tree{root: root, real: real}
	for _, inc := range incs {
		d := filepath.Join(real, inc)
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("include directory %s: %w", inc, err)
		}
		if !within(r, real) {
			return nil, &TreeError{Path: inc, Msg: "the include directory resolves to " + r + ", outside the tree"}
		}
		t.incs = append(t.incs, r)
	}
	return t, nil
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

func (t *tree) rel(p string) string {
	if r, err := filepath.Rel(t.real, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// walk checks the include directory i and calls file for each regular
// file under it, named as the compiler would name it (links to
// directories are walked under the link's name), with its content. When
// known is set and says it checked a file from its metadata (a file of
// the build's git objects, whose directives were read as it was written),
// the file is not opened.
func (t *tree) walk(i int, file func(name string, in input.File) error, known func(name string, fi fs.FileInfo) (bool, error)) error {
	visited := map[string]bool{}
	var dir func(real, named string) error
	dir = func(real, named string) error {
		if visited[real] {
			return nil // a loop of links: walked once
		}
		visited[real] = true
		return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if t.n++; t.n > maxTreeFiles {
				return &TreeError{Path: t.rel(t.incs[i]), Msg: fmt.Sprintf("more than %d files under the include directories", maxTreeFiles)}
			}
			name := filepath.Join(named, strings.TrimPrefix(p, real))
			switch typ := d.Type(); {
			case typ.IsDir():
				return nil
			case typ&fs.ModeSymlink != 0:
				target, err := t.link(p)
				if err != nil || target == "" {
					return err
				}
				fi, err := os.Stat(target)
				if err != nil {
					return nil
				}
				if fi.IsDir() {
					return dir(target, name)
				}
				if known != nil && fi.Mode().IsRegular() {
					if ok, err := known(name, fi); ok || err != nil {
						return err
					}
				}
				return t.open(target, name, file)
			case typ.IsRegular():
				if known != nil {
					if fi, err := d.Info(); err == nil {
						if ok, err := known(name, fi); ok || err != nil {
							return err
						}
					}
				}
				return t.open(p, name, file)
			default:
				return &TreeError{Path: t.rel(p), Msg: kindOf(typ) + ", not a regular file: refused"}
			}
		})
	}
	return dir(t.incs[i], t.incs[i])
}

// link returns where the link p resolves ("" when it resolves nowhere,
// inside the tree), or an error when it leaves the tree or names what is
// not a file or directory.
func (t *tree) link(p string) (string, error) {
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		// Dangling, or a loop: the compiler cannot open it either, as
		// long as what it names would be inside.
		if filepath.IsAbs(target) || !within(filepath.Join(filepath.Dir(p), target), t.real) {
			return "", &TreeError{Path: t.rel(p), Msg: "a link to " + target + ", outside the tree: refused"}
		}
		return "", nil
	}
	if !within(r, t.real) {
		return "", &TreeError{Path: t.rel(p), Msg: "a link to " + target + ", outside the tree: refused"}
	}
	fi, err := os.Stat(r)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return "", &TreeError{Path: t.rel(p), Msg: "a link to " + kindOf(fi.Mode().Type()) + ", not a regular file: refused"}
	}
	return r, nil
}

func (t *tree) open(p, name string, file func(string, input.File) error) error {
	// Never a FIFO or device, even one swapped in after the walk looked.
	in, err := input.Open(p, nil, nil)
	if errors.Is(err, input.ErrNotRegular) {
		return &TreeError{Path: t.rel(name), Msg: "not a regular file: refused"}
	}
	if err != nil {
		return err
	}
	defer in.Close()
	return file(name, in)
}

// noSpecial refuses a named pipe, device or socket anywhere in the tree,
// not only under its include directories: the compiler may read the
// whole tree (a header includes "../shared/w.h"), and a name it computes
// can reach one there that no walk of the include directories saw (a
// FIFO stalled it until its timeout). Links are not followed: one that
// leaves the tree leads where the compiler cannot open (Landlock), and
// one that stays leads to an entry this walk sees.
func noSpecial(root string) error {
	root, err := filepath.EvalSymlinks(root) // a link given as the tree is walked, not reported
	if err != nil {
		return err
	}
	n := 0
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxTreeFiles {
			return &TreeError{Path: ".", Msg: fmt.Sprintf("more than %d files in the tree", maxTreeFiles)}
		}
		if typ := d.Type(); typ&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0 {
			rel, _ := filepath.Rel(root, p)
			return &TreeError{Path: filepath.ToSlash(rel), Msg: kindOf(typ) + ", not a regular file: refused"}
		}
		return nil
	})
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a file or directory"
}

// check walks every include directory, hashing each (see dirIDs) when
// ids is not nil, and checks each file's #include names.
func (t *tree) check(incs []string, ids *[]string) error {
	var known func(string, fs.FileInfo) (bool, error)
	if ids == nil && t.known != nil {
		// Nothing to hash: a file whose directives are known is
		// checked without reading it.
		known = func(name string, fi fs.FileInfo) (bool, error) {
			ds, ok := t.known(fi)
			if !ok {
				return false, nil
			}
			return true, t.apply(name, ds)
		}
	}
	for i, inc := range incs {
		h := sha256.New()
		err := t.walk(i, func(name string, in input.File) error {
			fh := sha256.New()
			r := io.TeeReader(io.NewSectionReader(in.FD, 0, in.Size), fh)
			if err := t.includes(name, r); err != nil {
				return err
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				return err
			}
			rel, _ := filepath.Rel(t.incs[i], name)
			fmt.Fprintf(h, "F %s %x\n", filepath.ToSlash(rel), fh.Sum(nil))
			return nil
		}, known)
		if err != nil {
			return err
		}
		if ids != nil {
			*ids = append(*ids, inc+" "+hex.EncodeToString(h.Sum(nil)))
		}
	}
	return t.checkComputed()
}

// includes reads a header's directives and refuses an #include (or
// #include_next, #import, #embed) whose name, as written, is absolute or
// would be looked up outside the tree: from the header's own directory
// first for "name", then from each include directory in turn, until one
// that exists.
func (t *tree) includes(name string, r io.Reader) error {
	ds, err := scanDirectives(r)
	if aerr := t.apply(name, ds); aerr != nil {
		return aerr
	}
	return err
}

// scanDirectives returns the directives of a header that a tree's check
// looks at, in order: they depend on the header's bytes only, so a file
// that many versions share (a git blob) is read once (objects.go). On a
// read error it returns what it read before it.
func scanDirectives(r io.Reader) ([]dir, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	comment := false
	var ds []dir
	var buf []byte
	for {
		line, err := logicalLine(br, buf[:0])
		buf = line
		if len(line) > 0 {
			var d dir
			d, comment = directive(line, comment)
			if d.kind == "define" || d.kind == "include" && (d.macro != "" || d.name != "") {
				ds = append(ds, d)
			}
		}
		if err == io.EOF {
			return ds, nil
		}
		if err != nil {
			return ds, err
		}
	}
}

// apply checks the directives ds of the header name, in order.
func (t *tree) apply(name string, ds []dir) error {
	for _, d := range ds {
		switch {
		case d.kind == "define":
			// #define P "/dev/zero" then #include P: the name a
			// computed include most simply takes is checked too.
			if t.defines == nil {
				t.defines = map[string]dir{}
			}
			if _, ok := t.defines[d.macro]; !ok {
				t.defines[d.macro] = d
			}
		case d.macro != "":
			t.computed = append(t.computed, computed{file: name, macro: d.macro})
		case d.name != "":
			if err := t.includeName(name, d.name, d.quoted, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkComputed checks the computed includes whose macro the tree
// defines as a name, once every file was read.
func (t *tree) checkComputed() error {
	for _, c := range t.computed {
		if d, ok := t.defines[c.macro]; ok {
			if err := t.includeName(c.file, d.name, d.quoted, c.macro); err != nil {
				return err
			}
		}
	}
	return nil
}

// computed is an #include MACRO.
type computed struct{ file, macro string }

// dir is a directive a tree's check reads: an #include of a name, an
// #include of a macro, or a #define of a macro as a name.
type dir struct {
	kind   string // "include" (and its kin) or "define"
	name   string // the name, without its quotes
	quoted bool   // "name", not <name>
	macro  string // #include MACRO, or the macro a #define defines
}

func (t *tree) includeName(file, n string, quoted bool, macro string) error {
	refuse := func(why string) error {
		what := fmt.Sprintf("#include %q", n)
		if macro != "" {
			what = fmt.Sprintf("#include %s (defined as %q)", macro, n)
		}
		return &TreeError{Path: t.rel(file), Msg: what + " " + why + ": refused"}
	}
	if filepath.IsAbs(n) {
		return refuse("names an absolute path")
	}
	if !strings.Contains(n, "..") {
		return nil // looked up below a directory of the tree or the system's
	}
	var from []string
	if quoted {
		from = append(from, filepath.Dir(file))
	}
	from = append(from, t.incs...)
	for _, d := range from {
		p, ok := resolveIn(d, n)
		if !within(p, t.real) {
			return refuse("climbs out of the tree")
		}
		if ok {
			return nil
		}
	}
	return nil
}

// resolveIn is where name resolves from dir as the kernel would walk it
// (".." after a link is the parent of the link's target), and whether it
// exists.
func resolveIn(dir, name string) (string, bool) {
	cur := dir
	if r, err := filepath.EvalSymlinks(cur); err == nil {
		cur = r
	}
	for _, c := range strings.Split(name, "/") {
		switch c {
		case "", ".":
		case "..":
			cur = filepath.Dir(cur)
		default:
			cur = filepath.Join(cur, c)
			if r, err := filepath.EvalSymlinks(cur); err == nil {
				cur = r
			}
		}
	}
	_, err := os.Lstat(cur)
	return cur, err == nil
}

// logicalLine reads one line with its backslash-newlines joined, keeping
// at most maxDirective bytes of it, appended to line (a buffer the caller
// reuses: a header is read without a slice per line).
func logicalLine(br *bufio.Reader, line []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) < maxDirective {
			line = append(line, chunk[:min(len(chunk), maxDirective-len(line))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return line, err
		}
		l := bytes.TrimRight(line, "\r\n")
		if !bytes.HasSuffix(l, []byte(`\`)) || len(line) >= maxDirective {
			return line, nil
		}
		line = l[:len(l)-1]
	}
}

// directive reads the directive on line, if it is one tree.includes
// looks at, and reports whether a block comment is still open at the end
// of the line.
func directive(line []byte, comment bool) (dir, bool) {
	i := 0
	// skip passes spaces and comments; it reports false at the end of
	// the line or a // comment.
	skip := func() bool {
		for i < len(line) {
			switch {
			case comment:
				if j := bytes.Index(line[i:], []byte("*/")); j >= 0 {
					i += j + 2
					comment = false
				} else {
					i = len(line)
				}
			case line[i] == ' ' || line[i] == '\t' || line[i] == '\f' || line[i] == '\v' || line[i] == '\r' || line[i] == '\n':
				i++
			case bytes.HasPrefix(line[i:], []byte("/*")):
				i += 2
				comment = true
			case bytes.HasPrefix(line[i:], []byte("//")):
				i = len(line)
				return false
			default:
				return true
			}
		}
		return false
	}
	// rest finds whether a block comment stays open past the line: only
	// a "/*" or "//" outside a comment, or a "*/" inside one, matters,
	// so it goes from one to the next (most lines of a header are not
	// directives: this is the check's inner loop).
	rest := func() bool {
		for i < len(line) {
			if comment {
				j := bytes.Index(line[i:], []byte("*/"))
				if j < 0 {
					return true
				}
				i += j + 2
				comment = false
				continue
			}
			j := bytes.IndexByte(line[i:], '/')
			if j < 0 {
				return false
			}
			i += j + 1
			if i < len(line) {
				switch line[i] {
				case '*':
					i++
					comment = true
				case '/':
					return false
				}
			}
		}
		return comment
	}
	ident := func() string {
		j := i
		for j < len(line) && (line[j] == '_' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || j > i && line[j] >= '0' && line[j] <= '9') {
			j++
		}
		id := string(line[i:j])
		i = j
		return id
	}
	// quotedName reads "name" or <name> at i.
	quotedName := func() (string, bool, bool) {
		end := byte('"')
		switch line[i] {
		case '"':
		case '<':
			end = '>'
		default:
			return "", false, false
		}
		k := bytes.IndexByte(line[i+1:], end)
		if k < 0 {
			return "", false, false
		}
		n := string(line[i+1 : i+1+k])
		i += k + 2
		return n, end == '"', true
	}
	var d dir
	if !skip() {
		return d, comment
	}
	switch {
	case line[i] == '#':
		i++
	case bytes.HasPrefix(line[i:], []byte("%:")):
		i += 2
	default:
		return d, rest()
	}
	if !skip() {
		return d, comment
	}
	switch kw := ident(); kw {
	case "include", "include_next", "import", "embed":
		d.kind = "include"
		if !skip() {
			return d, comment
		}
		if n, q, ok := quotedName(); ok {
			d.name, d.quoted = n, q
		} else {
			d.macro = ident()
		}
	case "define":
		if !skip() {
			return d, comment
		}
		m := ident()
		if m == "" || i < len(line) && line[i] == '(' || !skip() {
			return d, rest()
		}
		if n, q, ok := quotedName(); ok {
			d = dir{kind: "define", name: n, quoted: q, macro: m}
		}
	}
	return d, rest()
}
