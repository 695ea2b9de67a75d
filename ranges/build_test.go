package ranges

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/ranges/table"
)

// step is one commit of a test repository: files to write (an empty
// content deletes the file) and the tags to put on the commit.
type step struct {
	tags  []string
	files map[string]string
}

func needTools(t testing.TB, tools ...string) {
	t.Helper()
	fixture.Need(t, tools...)
}

// gitIn runs git in dir as a fixed author, with no user or system
// configuration.
func gitIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitRepo builds a repository at test time, one commit per step.
func gitRepo(t testing.TB, steps []step) string {
	t.Helper()
	needTools(t, "git")
	dir := t.TempDir()
	run := func(args ...string) { t.Helper(); gitIn(t, dir, args...) }
	run("init", "-q", "-b", "main")
	for i, s := range steps {
		for name, body := range s.files {
			p := filepath.Join(dir, name)
			if body == "" {
				os.Remove(p)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run("add", "-A")
		run("commit", "-q", "--allow-empty", "-m", "step "+strings.Join(s.tags, " ")+" "+string(rune('a'+i)))
		for _, tag := range s.tags {
			run("tag", tag)
		}
	}
	return dir
}

const (
	aH1 = "#include \"b.h\"\nstruct s { int a; int b; };\ntypedef struct s S;\n"
	aH2 = "#include \"b.h\"\nstruct s { int a; int b; int c; };\ntypedef struct s S;\n"
	bH1 = "struct t { long x; };\n"
	// struct t moved from b.h into a.h: no layout change.
	aH3 = "#include \"b.h\"\nstruct t { long x; };\nstruct s { int a; int b; };\ntypedef struct s S;\n"
	bH3 = "/* struct t lives in a.h now */\n"
	aH4 = "#include \"b.h\"\nstruct t { int x; };\nstruct s { int a; int b; };\ntypedef struct s S;\n"
)

// history is twelve versions of a small header tree: an unchanged stretch
// (1.0-1.2, one with only a comment changed), a change (2.0), the change
// reverted inside a stretch (2.2), a struct moved between headers with no
// layout change (3.0), a change (3.1), and a tag missing a header (3.3).
func history() []step {
	return []step{
		{[]string{"1.0"}, map[string]string{"inc/a.h": aH1, "inc/b.h": bH1, "README": "x"}},
		{[]string{"1.1"}, map[string]string{"inc/b.h": "/* comment */\n" + bH1}},
		{[]string{"1.2", "other-tag"}, map[string]string{"README": "y"}},
		{[]string{"2.0"}, map[string]string{"inc/a.h": aH2}},
		{[]string{"2.1"}, map[string]string{"README": "z"}},
		{[]string{"2.2"}, map[string]string{"inc/a.h": aH1}},
		{[]string{"2.3"}, nil},
		{[]string{"3.0"}, map[string]string{"inc/a.h": aH3, "inc/b.h": bH3}},
		{[]string{"3.1"}, map[string]string{"inc/a.h": aH4}},
		{[]string{"3.2"}, nil},
		{[]string{"3.3"}, map[string]string{"inc/b.h": ""}},
		{[]string{"3.4"}, map[string]string{"inc/b.h": bH3}},
	}
}

func testOptions() Options {
	return Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"S", "struct t"}}
}

func summary(tab *table.Table) []string {
	var got []string
	for _, r := range tab.Ranges {
		s := strings.Join(r.Versions, ",")
		if r.SameAs != nil {
			s += " =" + tab.Ranges[*r.SameAs].First
		}
		got = append(got, s)
	}
	return got
}

func TestBuildGit(t *testing.T) {
	needTools(t, "git", "cc")
	repo := gitRepo(t, history())
	ctx := context.Background()
	ins, err := GitTags(ctx, repo, `^[0-9]`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 12 {
		t.Fatalf("%d tags, want 12: %v", len(ins), ins)
	}
	b := &Builder{Options: testOptions(), CacheDir: t.TempDir(), Jobs: 2}
	res := b.Build(ctx, ins)
	var failed []string
	for _, r := range res {
		if r.Err != nil {
			failed = append(failed, r.Version)
			if !strings.Contains(r.Err.Error(), "b.h: No such file") || !strings.Contains(r.Err.Error(), "inc/a.h") {
				t.Errorf("version %s: error does not show the compiler's message about b.h: %v", r.Version, r.Err)
			}
		}
	}
	if !slices.Equal(failed, []string{"3.3"}) {
		t.Fatalf("failed versions %v, want [3.3]", failed)
	}
	tab, err := NewTable(testOptions(), res)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1.0,1.1,1.2", "2.0,2.1", "2.2,2.3,3.0 =1.0", "3.1,3.2,3.4"}
	if got := summary(tab); !slices.Equal(got, want) {
		t.Errorf("ranges %q, want %q", got, want)
	}
	if c := tab.Ranges[1].Changes; len(c) == 0 || c[0].Type != "struct s" || c[0].Path != "size" {
		t.Errorf("range 1 changes: %+v", c)
	}
	var sawX bool
	for _, c := range tab.Ranges[3].Changes {
		if c.Type == "struct t" && c.Path == "x.type" && c.Old == "long int" && c.New == "int" {
			sawX = true
		}
	}
	if !sawX {
		t.Errorf("range 3 changes do not say x.type long int -> int: %+v", tab.Ranges[3].Changes)
	}
	for _, l := range []struct {
		v        string
		covered  bool
		observed bool
		rng      int
	}{
		{"1.1", true, true, 0},
		{"1.1.5", true, false, 0},
		{"1.5", false, false, -1},
		{"2.0.1", true, false, 1},
		{"2.1.9", false, false, -1},
		{"2.5", true, false, 2},
		{"3.0.1", false, false, -1},
		{"3.1.5", true, false, 3},
		// 3.3 failed: nothing is inferred across it.
		{"3.2.7", false, false, -1},
		{"3.3", false, false, -1},
		{"3.3.1", false, false, -1},
		{"0.9", false, false, -1},
		{"4.0", false, false, -1},
	} {
		a, err := tab.Lookup(l.v)
		if err != nil || a.Covered != l.covered || a.Observed != l.observed || index(a) != l.rng {
			t.Errorf("Lookup(%s) = %+v, %v", l.v, a, err)
		}
	}

	if !slices.Equal(tab.Failed, []string{"3.3"}) {
		t.Errorf("failed %v, want [3.3]", tab.Failed)
	}
	if a, _ := tab.Lookup("3.3"); a.Failed != "3.3" || before(a) != 3 || after(a) != 3 || !strings.Contains(tab.Describe(a), "this version could not be built") {
		t.Errorf("Lookup(3.3) = %+v: %s", a, tab.Describe(a))
	}

	// A warm rebuild compiles nothing: every version comes from the cache.
	res2 := (&Builder{Options: testOptions(), CacheDir: b.CacheDir}).Build(ctx, ins)
	for _, r := range res2 {
		if r.Err == nil && !r.Cached {
			t.Errorf("version %s: not from the cache on a warm rebuild", r.Version)
		}
	}
	tab2, _ := NewTable(testOptions(), res2)
	if !slices.Equal(summary(tab2), want) {
		t.Errorf("warm ranges %q", summary(tab2))
	}

	// A corrupt entry is rebuilt, with a warning, never trusted.
	var entries []string
	filepath.WalkDir(b.CacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			entries = append(entries, p)
		}
		return nil
	})
	if len(entries) == 0 {
		t.Fatal("no cache entries")
	}
	for _, p := range entries {
		data, _ := os.ReadFile(p)
		// Same JSON shape, another ABI: only the hash can tell.
		data = []byte(strings.Replace(string(data), `"size":8`, `"size":9`, 1))
		os.WriteFile(p, data, 0o644)
	}
	res3 := (&Builder{Options: testOptions(), CacheDir: b.CacheDir}).Build(ctx, ins)
	warned := 0
	for _, r := range res3 {
		if strings.Contains(r.Warning, "corrupt") {
			warned++
		}
	}
	if warned == 0 {
		t.Error("no warning about the corrupt cache entries")
	}
	tab3, _ := NewTable(testOptions(), res3)
	if !slices.Equal(summary(tab3), want) {
		t.Errorf("ranges after corruption %q", summary(tab3))
	}
}

func TestGitTagsErrors(t *testing.T) {
	needTools(t, "git")
	repo := gitRepo(t, []step{{[]string{"1.0", "release-x"}, map[string]string{"a.h": "struct s { int a; };\n"}}})
	ctx := context.Background()
	for _, tt := range []struct{ pattern, want string }{
		{`^9`, `no tag matches '^9'`},
		{`release`, `tag release-x matches 'release' but is not a version`},
		{`(`, `tag pattern '(':`},
	} {
		// A library error names no flag (the command adds --tags).
		_, err := GitTags(ctx, repo, tt.pattern)
		var te *TagsError
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "--tags") || !errors.As(err, &te) {
			t.Errorf("%s: got %v, want %q", tt.pattern, err, tt.want)
		}
	}
	if _, err := GitTags(ctx, t.TempDir(), "."); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("not a repository: %v", err)
	}
	// Build: every version of a repository git cannot read has git's error.
	b := &Builder{Options: testOptions()}
	notRepo := t.TempDir()
	for _, r := range b.Build(ctx, []Input{{Version: "1.0", Repo: notRepo, Rev: "1.0"}, {Version: "2.0", Repo: notRepo, Rev: "2.0"}}) {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "not a git repository") {
			t.Errorf("build of %s in a directory that is not a repository: %v", r.Version, r.Err)
		}
	}
}

func TestBuildDirAndCancel(t *testing.T) {
	needTools(t, "cc")
	root := t.TempDir()
	var ins []Input
	for i, body := range []string{"struct s { int a; };", "struct s { int a; };", "struct s { long a; };"} {
		d := filepath.Join(root, string(rune('a'+i)))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "s.h"), []byte(body), 0o644)
		ins = append(ins, Input{Version: []string{"1", "2", "3"}[i], Dir: d})
	}
	opt := Options{Headers: []string{"s.h"}, Types: []string{"struct s"}}
	res := (&Builder{Options: opt}).Build(context.Background(), ins)
	tab, err := NewTable(opt, res)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(tab); !slices.Equal(got, []string{"1,2", "3"}) {
		t.Errorf("ranges %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, r := range (&Builder{Options: opt}).Build(ctx, ins) {
		if r.Err == nil {
			t.Errorf("version %s built after cancel", r.Version)
		}
	}
}

func TestCheckInputs(t *testing.T) {
	if err := CheckInputs([]Input{{Version: "1.0", File: "a"}, {Version: "1.00", File: "b"}}); err == nil || !strings.Contains(err.Error(), "given twice (a and b)") {
		t.Errorf("duplicate: %v", err)
	}
	if err := CheckInputs([]Input{{Version: "one", File: "a"}}); err == nil || !strings.Contains(err.Error(), "a: version \"one\"") {
		t.Errorf("unparsable: %v", err)
	}
}

func TestBuildGitMissingInclude(t *testing.T) {
	needTools(t, "git", "cc")
	repo := gitRepo(t, []step{
		{[]string{"1.0"}, map[string]string{"inc/a.h": "struct s { int a; };\n"}},
		{[]string{"2.0"}, map[string]string{"inc/a.h": "", "other/a.h": "struct s { int a; };\n"}},
	})
	ctx := context.Background()
	ins, err := GitTags(ctx, repo, ".")
	if err != nil {
		t.Fatal(err)
	}
	res := (&Builder{Options: Options{Includes: []string{"inc"}, Headers: []string{"a.h"}, Types: []string{"struct s"}}}).Build(ctx, ins)
	if res[0].Err != nil {
		t.Errorf("1.0: %v", res[0].Err)
	}
	if res[1].Err == nil || res[1].Err.Error() != "2.0 has no inc" {
		t.Errorf("2.0: %v, want \"2.0 has no inc\"", res[1].Err)
	}
}

// A FIFO is never opened: in a header tree it is refused before the
// compiler runs (issue 28, item 6; it hung the compile until its
// timeout), and as a cache entry it is refused with a warning; neither
// blocks.
func TestFIFOsNeverOpened(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.h"), []byte("struct s { int a; };\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := dirIDs(dir, []string{"."})
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.h"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	var te *TreeError
	if _, err := dirIDs(dir, []string{"."}); !errors.As(err, &te) || te.Path != "pipe.h" || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("dirIDs with a FIFO: %v, want a refusal naming pipe.h", err)
	}
	os.Remove(filepath.Join(dir, "pipe.h"))
	if got, err := dirIDs(dir, []string{"."}); err != nil || !slices.Equal(got, want) {
		t.Errorf("dirIDs: %v, %v; want %v", got, err, want)
	}
	// A FIFO planted as a cache entry's file is refused (package cache
	// never opens it), rebuilt, and the build says so.
	opt := Options{Headers: []string{"a.h"}, Types: []string{"struct s"}}
	b := &Builder{Options: opt, CacheDir: t.TempDir()}
	in := Input{Version: "1.0", Dir: dir}
	key, err := b.key(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	store, err := b.store()
	if err != nil {
		t.Fatal(err)
	}
	p := store.Path(key)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(p, entryName), 0o644); err != nil {
		t.Fatal(err)
	}
	needTools(t, "cc")
	done := make(chan Result)
	go func() { done <- b.Build(context.Background(), []Input{in})[0] }()
	select {
	case r := <-done:
		if r.Err != nil || r.ABI == nil || !strings.Contains(r.Warning, "corrupt") {
			t.Errorf("a FIFO as the cache entry: %+v", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a FIFO in the cache blocked the build")
	}
}
