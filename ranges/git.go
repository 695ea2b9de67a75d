package ranges

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/symver"
)

// dirIDs hashes every file under each include directory of dir, after
// checking the tree (tree.go): a link out of it, a FIFO or device under
// an include directory, or an #include that climbs out is an error.
func dirIDs(dir string, incs []string) ([]string, error) {
	t, err := newTree(dir, incs)
	if err != nil {
		return nil, err
	}
	var ids []string
	if err := t.check(incs, &ids); err != nil {
		return nil, err
	}
	return ids, nil
}

// gitTreeIDs returns the object id of each include path at each rev, with
// one git process for all of them and no checkout: git's tree ids are
// already hashes of the content. A rev that lacks a path has an error.
func gitTreeIDs(ctx context.Context, repo string, revs, incs []string) (map[string]treeIDs, error) {
	// Per rev: the commit itself (so a missing tag is named as such), then
	// each include path.
	per := len(incs) + 1
	var q bytes.Buffer
	for _, rev := range revs {
		fmt.Fprintf(&q, "%s^{commit}\n", rev)
		for _, inc := range incs {
			p := path.Clean(filepath.ToSlash(inc))
			if p == "." {
				p = ""
			}
			fmt.Fprintf(&q, "%s^{commit}:%s\n", rev, p)
		}
	}
	out, err := git(ctx, repo, &q, "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(revs)*per {
		return nil, fmt.Errorf("%s: git cat-file answered %d lines for %d names", repo, len(lines), len(revs)*per)
	}
	missing := func(l string) bool { return strings.HasSuffix(l, " missing") || strings.HasSuffix(l, " ambiguous") }
	res := make(map[string]treeIDs, len(revs))
	for i, rev := range revs {
		var t treeIDs
		if missing(lines[i*per]) {
			res[rev] = treeIDs{err: fmt.Errorf("%s: no tag or commit %s", repo, rev)}
			continue
		}
		for j, inc := range incs {
			l := lines[i*per+1+j]
			if missing(l) {
				t = treeIDs{err: fmt.Errorf("%s has no %s", rev, inc)}
				break
			}
			id, _, _ := strings.Cut(l, " ")
			t.ids = append(t.ids, inc+" "+id)
		}
		res[rev] = t
	}
	return res, nil
}

type treeIDs struct {
	ids []string
	err error
}

// git runs git in repo and returns its standard output; the error carries
// git's standard error.
func git(ctx context.Context, repo string, stdin io.Reader, args ...string) ([]byte, error) {
	gitPath, err := run.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	res, err := run.Cmd{Path: gitPath, Name: "git", Args: append([]string{"-C", repo}, args...), Stdin: stdin, MaxOutput: 256 << 20}.Run(ctx)
	if err != nil {
		var re *run.Error
		msg := err.Error()
		if errors.As(err, &re) && strings.TrimSpace(re.Stderr) != "" {
			msg = strings.TrimSpace(re.Stderr)
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return res.Stdout, nil
}

// ErrNoGit is returned when git is not on PATH.
var ErrNoGit = errors.New("git not found on PATH")

// exportRoot is where a version's include paths are unpacked: $TMPDIR
// when the user set it, else /dev/shm when it is a writable directory (a
// tmpfs on Linux), else the system's temporary directory. Hundreds of
// headers written and removed per version cost 2.3 times more on a disk
// (ext4 with discard: 18 s against 8 s for 26 of NVIDIA's tags).
func exportRoot() string {
	if os.Getenv("TMPDIR") != "" {
		return ""
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && syscall.Access("/dev/shm", 2) == nil {
		return "/dev/shm"
	}
	return ""
}

// maxExport bounds what one version's include paths may unpack to.
const maxExport = 1 << 30

// gitExport writes the files under the include paths at rev into dir,
// straight from git's objects (git archive): no work tree is checked out.
func gitExport(ctx context.Context, repo, rev string, incs []string, dir string) error {
	gitPath, err := run.LookPath("git")
	if err != nil {
		return ErrNoGit
	}
	args := []string{"-C", repo, "archive", "--format=tar", rev + "^{commit}", "--"}
	for _, inc := range incs {
		args = append(args, path.Clean(filepath.ToSlash(inc)))
	}
	st, err := run.Cmd{Path: gitPath, Name: "git", Args: args}.Stream(ctx)
	if err != nil {
		return err
	}
	terr := untar(st, dir)
	io.Copy(io.Discard, st)
	if err := st.Wait(); err != nil {
		msg := err.Error()
		var re *run.Error
		if errors.As(err, &re) && strings.TrimSpace(re.Stderr) != "" {
			msg = strings.TrimSpace(re.Stderr)
		}
		return fmt.Errorf("git archive %s: %s", rev, msg)
	}
	return terr
}

// untar writes regular files, directories and symlinks of a tar stream
// under dir; names that would leave dir are refused, and so are names at
// or under a symlink the stream made (a crafted tree can hold a link and
// a file of one name), which would write wherever the link points.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	var total int64
	links := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading git archive: %w", err)
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("git archive: member %q leaves the tree", h.Name)
		}
		for q := name; q != "."; q = path.Dir(q) {
			if links[q] {
				return fmt.Errorf("git archive: member %q is at or under the symlink %s", h.Name, q)
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > maxExport {
				return fmt.Errorf("git archive: include paths larger than %d bytes", maxExport)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, io.LimitReader(tr, h.Size))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			// A link out of the tree would let the compiler read
			// there (an absolute one too: tar recreates it as is).
			t := h.Linkname
			if path.IsAbs(t) || t == "" {
				return fmt.Errorf("git archive: member %q is a link to %s, outside the tree", h.Name, t)
			}
			if j := path.Join(path.Dir(name), t); j == ".." || strings.HasPrefix(j, "../") {
				return fmt.Errorf("git archive: member %q is a link to %s, outside the tree", h.Name, t)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
			links[name] = true
		}
	}
}

// GitTags lists the tags of repo that match pattern as inputs, ordered by
// version. A matching tag that is not a version is an error, as is a
// pattern that matches nothing.
func GitTags(ctx context.Context, repo, pattern string) ([]Input, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, &TagsError{Pattern: pattern, Err: err}
	}
	out, err := git(ctx, repo, nil, "tag", "--list")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", repo, err)
	}
	var ins []Input
	for _, tag := range strings.Fields(string(out)) {
		if !re.MatchString(tag) {
			continue
		}
		if err := symver.Check(tag); err != nil {
			return nil, &TagsError{Repo: repo, Pattern: pattern, Tag: tag, Err: err}
		}
		ins = append(ins, Input{Version: tag, Repo: repo, Rev: tag})
	}
	if len(ins) == 0 {
		return nil, &TagsError{Repo: repo, Pattern: pattern}
	}
	SortInputs(ins)
	return ins, nil
}
