package ranges

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitOut runs git in dir with input on stdin and returns its output.
func gitOut(t testing.TB, dir, input string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// craftedRepo tags trees that git's porcelain never writes but git
// mktree does (a stranger's repository can hold them): each tag's tree
// has inc/ made of the entries given ("MODE TYPE CONTENT\tNAME", CONTENT
// hashed as a blob; "tree" entries name a tree of one file x.h, "commit"
// ones a submodule).
func craftedRepo(t *testing.T, tags map[string][]string) string {
	t.Helper()
	needTools(t, "git")
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	blob := func(s string) string { return gitOut(t, dir, s, "hash-object", "-w", "--stdin") }
	x := gitOut(t, dir, "100644 blob "+blob("struct x { int a; };\n")+"\tx.h\n", "mktree")
	for tag, entries := range tags {
		var inc strings.Builder
		for _, e := range entries {
			meta, name, _ := strings.Cut(e, "\t")
			f := strings.Fields(meta)
			id := x
			switch f[1] {
			case "blob":
				id = blob(strings.Join(f[2:], " "))
			case "commit":
				id = strings.Repeat("12", 20) // a submodule's commit is not in the repository
			}
			fmt.Fprintf(&inc, "%s %s %s\t%s\n", f[0], f[1], id, name)
		}
		root := gitOut(t, dir, "040000 tree "+gitOut(t, dir, inc.String(), "mktree")+"\tinc\n", "mktree")
		commit := gitOut(t, dir, "", "commit-tree", root, "-m", tag)
		gitIn(t, dir, "tag", tag, commit)
	}
	return dir
}

// A crafted tree with a link and a directory of one name, or a link out
// of the tree, is refused before anything is written through the link
// (issue 28, item 6); so is a name git would never write.
func TestExportCraftedTrees(t *testing.T) {
	needTools(t, "git", "cc")
	outside := t.TempDir()
	repo := craftedRepo(t, map[string][]string{
		"1.0": {"120000 blob " + filepath.Join(outside, "secret") + "\ta.h"},
		"1.1": {"120000 blob ../../x\ta.h"},
		"1.2": {"120000 blob ../inc/../../x\ta.h"},
		"1.3": {"120000 blob ../..\ta.h"},
		// Inside as written, out when the kernel walks it: d is the
		// directory itself, so each ".." after d/x climbs one more.
		"1.4": {"120000 blob .\td", "040000 tree\tx", "120000 blob " + strings.Repeat("d/", 30) + "x" + strings.Repeat("/..", 31) + "/etc/passwd\ta.h"},
		"2.0": {"100644 blob int a;\ta.h", "120000 blob " + outside + "\tevil", "040000 tree\tevil"},
		"2.1": {"100644 blob int a;\ta.h", "120000 blob .\tevil", "040000 tree\tevil"},
		"2.2": {"100644 blob int a;\ta.h", "100644 blob int b;\ta.h"},
		"3.0": {"100644 blob int a;\ta.h", "100644 blob int b;\t.."},
		"4.0": {"100644 blob #include \"sub/x.h\"\ta.h", "040000 tree\tsub", "160000 commit\tmodule"},
	})
	ins, err := GitTags(context.Background(), repo, `^[0-9]`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"1.0": "inc/a.h is a link to " + filepath.Join(outside, "secret") + ", outside the tree",
		"1.1": "inc/a.h is a link to ../../x, outside the tree",
		"1.2": "outside the tree",
		"1.3": "outside the tree",
		"1.4": "outside the tree",
		"2.0": "inc/evil",
		"2.1": "inc/evil",
		"2.2": "inc/a.h given twice",
		"3.0": `git ls-tree: "..": an empty, "." or ".." component`,
	}
	res := (&Builder{Options: Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"struct x"}}}).Build(context.Background(), ins)
	for _, r := range res {
		if r.Version == "4.0" {
			if r.Err != nil || r.ABI == nil || r.ABI.Types["struct x"] == nil {
				t.Errorf("4.0, a sound tree with a submodule: %v", r.Err)
			}
			continue
		}
		if r.Err == nil || !strings.Contains(r.Err.Error(), want[r.Version]) {
			t.Errorf("%s: %v, want %q", r.Version, r.Err, want[r.Version])
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("a file was written through a link: %v", ents)
	}
}

// materialize on its own: a path at or under a link it made is never
// written, whatever the listing says.
func TestMaterializeNotThroughSymlink(t *testing.T) {
	o, err := newObjects()
	if err != nil {
		t.Fatal(err)
	}
	defer o.remove()
	add := func(content string) lsEntry {
		id := fmt.Sprintf("%040x", len(o.blobs)+1)
		e := lsEntry{mode: "100644", kind: "blob", id: id, size: int64(len(content))}
		b, err := o.write(e, strings.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		o.blobs[id], o.byIno[b.ino] = b, b
		return e
	}
	link, body := add("elsewhere"), add("pwned\n")
	link.mode = "120000"
	for _, member := range []string{"inc/evil", "inc/evil/x.h", "inc/evil/sub/x.h"} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "inc", "elsewhere"), 0o755)
		l, f := link, body
		l.path, f.path = "inc/evil", member
		err := o.materialize([]lsEntry{l, f}, dir)
		if err == nil || !strings.Contains(err.Error(), "under the symlink inc/evil") {
			t.Errorf("%s: got %v, want a refusal", member, err)
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "inc", "elsewhere")); len(ents) != 0 {
			t.Errorf("%s: written through the symlink: %v", member, ents)
		}
	}
	for _, p := range []string{"inc/./x.h", "/x.h", "inc//x.h", "inc/", ""} {
		f := body
		f.path = p
		if err := o.materialize([]lsEntry{f}, t.TempDir()); err == nil {
			t.Errorf("%q: written", p)
		}
	}
}

func TestParseLsTree(t *testing.T) {
	id := strings.Repeat("ab", 20)
	good := "100644 blob " + id + "     12\tinc/a b.h\x00" + "120000 blob " + id + "      3\tl\x00" + "160000 commit " + id + "       -\tm\x00"
	es, err := parseLsTree([]byte(good), true)
	if err != nil || len(es) != 3 || es[0].path != "inc/a b.h" || es[0].size != 12 || es[2].size != -1 {
		t.Fatalf("%+v %v", es, err)
	}
	for _, bad := range []string{
		"100644 blob " + id + " 12\tinc/a.h",                 // no NUL
		"100644 blob " + id + " 12 inc/a.h\x00",              // no tab
		"100644 tree " + id + " 12\ta\x00",                   // mode and type disagree
		"040000 tree " + id + " -\ta\x00",                    // a tree in a recursive listing
		"100644 blob " + id[:39] + " 12\ta\x00",              // short id
		"100644 blob " + strings.ToUpper(id) + " 12\ta\x00",  // not git's spelling
		"100644 blob " + id + " -12\ta\x00",                  // negative size
		"100644 blob " + id + " +12\ta\x00",                  // signed size
		"100644 blob " + id + " 99999999999999999999\ta\x00", // size overflows
		"160000 commit " + id + " 12\ta\x00",                 // a size for a submodule
		"100644 blob " + id + " 12\t../a\x00",                // climbs
		"100644 blob " + id + " 12\t/a\x00",                  // absolute
		"100644 blob " + id + " 12\ta//b\x00",                // empty component
		"100644 blob " + id + " 12\t\x00",                    // empty
		"100644 blob " + id + " 12 extra\ta\x00",             // five fields
		"100664 blob " + id + " 12\ta\x00",                   // a mode git never writes
	} {
		if es, err := parseLsTree([]byte(bad), true); err == nil {
			t.Errorf("%q: %+v, want an error", bad, es)
		}
	}
}

func TestReadBatch(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	asked := []lsEntry{{id: a, size: 3}, {id: b, size: 0}}
	read := func(in string) ([]string, error) {
		var got []string
		err := readBatch(strings.NewReader(in), asked, func(i int, r io.Reader) error {
			c, err := io.ReadAll(r)
			got = append(got, string(c))
			return err
		})
		return got, err
	}
	got, err := read(a + " blob 3\nx\ny\n" + b + " blob 0\n\n")
	if err != nil || len(got) != 2 || got[0] != "x\ny" || got[1] != "" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range []string{
		a + " blob 3\nxyz\n",                      // ends before the second
		a + " missing\n",                          // missing
		b + " blob 3\nxyz\n" + a + " blob 0\n\n",  // out of order
		a + " tree 3\nxyz\n" + b + " blob 0\n\n",  // not a blob
		a + " blob 4\nxyzw\n" + b + " blob 0\n\n", // another size than the tree's
		a + " blob 3\nxy",                         // short content
		a + " blob 3\nxyzX" + b + " blob 0\n\n",   // no newline after
		a + " blob 03\nxyz\n" + b + " blob 0\n\n", // not the size's spelling
		strings.Repeat("x", 8000) + "\n",          // a header longer than any
	} {
		if got, err := read(bad); err == nil {
			t.Errorf("%.60q: %q, want an error", bad, got)
		}
	}
}

// FuzzParseLsTree: any bytes as git ls-tree's output: no panic, and what
// is accepted is only relative paths of valid entries.
func FuzzParseLsTree(f *testing.F) {
	id := strings.Repeat("0f", 20)
	f.Add([]byte("100644 blob "+id+"     12\tinc/a.h\x00160000 commit "+id+" -\tm\x00"), true)
	f.Add([]byte("040000 tree "+id+" -\tinc\x00"), false)
	f.Add([]byte("100644 blob "+id+" 1\t../x\x00"), true)
	f.Fuzz(func(t *testing.T, b []byte, recursive bool) {
		es, err := parseLsTree(b, recursive)
		if err != nil {
			return
		}
		for _, e := range es {
			if validPath(e.path) != nil || !isObjectID(e.id) || e.kind == "blob" && e.size < 0 || recursive && e.kind == "tree" {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

// FuzzReadBatch: any bytes as git cat-file --batch's answer to two
// blobs: no panic, and content passed on only in the sizes asked.
func FuzzReadBatch(f *testing.F) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	f.Add([]byte(a+" blob 3\nxyz\n"+b+" blob 1\n\n\n"), int64(3), int64(1))
	f.Add([]byte(a+" missing\n"), int64(3), int64(0))
	f.Fuzz(func(t *testing.T, in []byte, sa, sb int64) {
		if sa < 0 || sb < 0 {
			return
		}
		asked := []lsEntry{{id: a, size: sa}, {id: b, size: sb}}
		n := 0
		err := readBatch(bytes.NewReader(in), asked, func(i int, r io.Reader) error {
			c, err := io.ReadAll(r)
			if int64(len(c)) > asked[i].size {
				t.Fatalf("blob %d: %d bytes, asked %d", i, len(c), asked[i].size)
			}
			n++
			return err
		})
		if err == nil && n != 2 {
			t.Fatalf("no error after %d blobs", n)
		}
	})
}

// A version whose tree differs from one compiled before only in files
// that compile did not read takes its ABI; any change to what it read,
// or to which paths exist (a header that now shadows another), compiles
// again, and every ABI equals the version's own compile.
func TestReuseUnreadChanges(t *testing.T) {
	needTools(t, "git", "cc")
	repo := gitRepo(t, []step{
		{[]string{"1.0"}, map[string]string{
			"inc/a.h":  "#include \"x.h\"\nstruct s { struct x v; int a; };\n",
			"inc2/x.h": "struct x { int q; };\n",
			"inc/b.c":  "int b;\n",
			"inc/c.h":  "struct c { int c; };\n",
		}},
		{[]string{"1.1"}, map[string]string{"inc/b.c": "int b, bb;\n"}},                                          // unread: reused
		{[]string{"1.2"}, map[string]string{"inc/c.h": "struct c { long c; };\n"}},                               // unread: reused
		{[]string{"1.3"}, map[string]string{"inc/a.h": "#include \"x.h\"\nstruct s { struct x v; long a; };\n"}}, // read
		{[]string{"1.4"}, map[string]string{"inc2/x.h": "struct x { short q; };\n"}},                             // read
		{[]string{"1.5"}, map[string]string{"inc/x.h": "struct x { char q[3]; };\n"}},                            // shadows inc2/x.h
		{[]string{"1.6"}, map[string]string{"inc/b.c": "int b, bbb;\n"}},                                         // unread: reused
	})
	ins, err := GitTags(context.Background(), repo, `^1\.`)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Includes: []string{"inc", "inc2"}, Headers: []string{"a.h"}, Types: []string{"struct s"}}
	b := &Builder{Options: opt, Jobs: 1}
	res := b.Build(context.Background(), ins)
	if n := b.compiles.Load(); n != 4 {
		t.Errorf("%d compiles for 7 versions, want 4", n)
	}
	for i, r := range res {
		alone := (&Builder{Options: opt}).Build(context.Background(), ins[i:i+1])[0]
		if r.Err != nil || alone.Err != nil {
			t.Fatalf("%s: %v / %v", r.Version, r.Err, alone.Err)
		}
		if r.ABI.Fingerprint() != alone.ABI.Fingerprint() {
			t.Errorf("%s: the ABI taken differs from the version's own compile", r.Version)
		}
	}
	// Four at a time: a version may wait for one still compiling; the
	// ABIs are the same.
	for i, r := range (&Builder{Options: opt, Jobs: 4}).Build(context.Background(), ins) {
		if r.Err != nil || r.ABI.Fingerprint() != res[i].ABI.Fingerprint() {
			t.Errorf("%s, four at a time: %v", r.Version, r.Err)
		}
	}
	if res[4].ABI.Fingerprint() == res[5].ABI.Fingerprint() {
		t.Error("1.5's x.h, which shadows 1.4's, changed nothing")
	}
}
