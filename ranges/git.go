package ranges

import (
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
			fmt.Fprintf(&q, "%s^{commit}:%s\n", rev, gitPath(inc))
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
		t := treeIDs{rev: rev}
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
			f := strings.Fields(l)
			if len(f) != 3 || !isObjectID(f[0]) {
				t = treeIDs{err: fmt.Errorf("%s: git cat-file answered %q for %s:%s", repo, l, rev, inc)}
				break
			}
			t.ids = append(t.ids, inc+" "+f[0])
			t.objs = append(t.objs, gitObject{path: gitPath(inc), id: f[0], kind: f[1]})
		}
		res[rev] = t
	}
	return res, nil
}

// treeIDs are the objects of a version's include paths: ids is what its
// cache key hashes, objs what its export unpacks (objects.go), the very
// same objects.
type treeIDs struct {
	rev  string
	ids  []string
	objs []gitObject
	err  error
}

// gitObject is the object at an include path of a version.
type gitObject struct {
	path string // slash-separated from the repository's root; "" is the root
	id   string
	kind string // tree, blob or commit (a submodule)
}

// gitPath is an include directory as a path in a git tree: slashes,
// cleaned, "" for the root.
func gitPath(inc string) string {
	p := path.Clean(filepath.ToSlash(inc))
	if p == "." {
		return ""
	}
	return p
}

// isObjectID reports whether s is a git object id: 40 (SHA-1) or 64
// (SHA-256) lowercase hex digits.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// git runs git in repo and returns its standard output; the error carries
// git's standard error.
func git(ctx context.Context, repo string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd, err := gitCmd(repo, stdin, args...)
	if err != nil {
		return nil, err
	}
	cmd.MaxOutput = 256 << 20
	res, err := cmd.Run(ctx)
	if err != nil {
		return nil, gitErr(args[0], err)
	}
	return res.Stdout, nil
}

// gitCmd is git run in repo, found on PATH (ErrNoGit when it is not).
func gitCmd(repo string, stdin io.Reader, args ...string) (run.Cmd, error) {
	gitPath, err := run.LookPath("git")
	if err != nil {
		return run.Cmd{}, ErrNoGit
	}
	return run.Cmd{Path: gitPath, Name: "git", Args: append([]string{"-C", repo}, args...), Stdin: stdin}, nil
}

// gitErr is git's failure in subcommand sub, told by git's standard
// error when it said something.
func gitErr(sub string, err error) error {
	msg := err.Error()
	var re *run.Error
	if errors.As(err, &re) && strings.TrimSpace(re.Stderr) != "" {
		msg = strings.TrimSpace(re.Stderr)
	}
	return fmt.Errorf("git %s: %s", sub, msg)
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
