package ccwrap

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// corpusProjects are the Debian source packages of the real-world corpus
// (issue 21), the quick ones first. testdata/corpus/build.sh builds each with its
// upstream build system, testdata/corpus/run.sh runs its programs.
var corpusProjects = []string{"zlib", "bzip2", "lz4", "lua5.4", "expat", "jq", "pcre2", "pcre2-cmake", "libevent", "libpng1.6", "fmtlib", "xz-utils", "libzstd", "sqlite3", "tmux", "libsodium", "brotli", "cjson", "lmdb"}

// corpusSource is the Debian source package of a project named otherwise
// (pcre2-cmake: pcre2 built with its CMake build).
var corpusSource = map[string]string{"pcre2-cmake": "pcre2"}

// corpusDeps are the other sources a project's build reads from $SRCROOT
// (tmux builds libevent and ncurses for the floor).
var corpusDeps = map[string][]string{"tmux": {"libevent", "ncurses"}}

// corpusTargetLibs are libraries a project links from this host because
// their own floor fits the target, and which the target has (Debian's
// zlib1g and libbz2-1.0 are in every install): the run under bullseye's
// loader finds these copies, as a bullseye system would find its own.
var corpusTargetLibs = map[string][]string{"pcre2-cmake": {"libz.so.1", "libbz2.so.1.0"}}

// corpusFloor is the target of the corpus: every output's GLIBC_ versions,
// by objdump -T, are at most this.
const corpusFloor = "2.17"

// TestCorpus builds real projects with the wrappers that `abifloor cc
// --install` and `abifloor c++ --install` write for glibc 2.17, each with
// its own build system and default options, and with plain gcc. Each
// output's floor is checked by objdump -T (not by abifloor), and its
// programs run under Debian bullseye's real glibc 2.31 loader and print
// what the native build prints. Go programs built with CC= the wrapper
// (net, os/user, github.com/mattn/go-sqlite3) are checked the same way.
//
// It takes minutes, so it runs only when ABIFLOOR_CCCORPUS is set: 1 (or
// all) for every project, or a comma-separated list of them (go for the Go
// programs). .ci/run sets it and fetches the sources with
// .ci/fetch-cccorpus.sh; once it is set, a missing input fails the test.
func TestCorpus(t *testing.T) {
	gate := os.Getenv("ABIFLOOR_CCCORPUS")
	if gate == "" {
		t.Skip("the real-world corpus (minutes) runs with ABIFLOOR_CCCORPUS=1, as .ci/run does")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the corpus builds and runs x86_64 Linux programs")
	}
	want := map[string]bool{}
	if gate == "1" || gate == "all" {
		for _, p := range corpusProjects {
			want[p] = true
		}
		want["go"] = true
	} else {
		for _, p := range strings.Split(gate, ",") {
			want[strings.TrimSpace(p)] = true
		}
	}
	home, _ := os.UserHomeDir()
	srcRoot := envOr("ABIFLOOR_CCCORPUS_SRC", filepath.Join(home, ".cache/abifloor/cccorpus"))
	bullseye := filepath.Join(envOr("ABIFLOOR_BULLSEYE", filepath.Join(home, ".cache/abifloor/bullseye")), "lib/x86_64-linux-gnu")
	if _, err := os.Stat(filepath.Join(bullseye, "ld-2.31.so")); err != nil {
		t.Fatalf("ABIFLOOR_CCCORPUS is set but bullseye's glibc 2.31 is missing (run .ci/fetch-bullseye.sh): %v", err)
	}
	for _, tool := range []string{"gcc", "g++", "make", "cmake", "autoreconf", "tclsh", "objdump", "patch", "pkg-config"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("ABIFLOOR_CCCORPUS is set but %s is not installed (.ci/run installs it)", tool)
		}
	}
	scripts, err := filepath.Abs("testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	self := filepath.Join(work, "abifloor")
	if out, err := exec.Command("go", "build", "-o", self, "../cmd/abifloor").CombinedOutput(); err != nil {
		t.Fatalf("go build abifloor: %v\n%s", err, out)
	}
	wrap := filepath.Join(work, "wrap")
	cache := filepath.Join(work, "cache")
	for _, c := range [][]string{{"cc", "gcc"}, {"c++", "g++"}} {
		cmd := exec.Command(self, c[0], "--glibc", corpusFloor, "--cache-dir", cache, "--install", wrap, "--", c[1])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("abifloor %s --install: %v\n%s", c[0], err, out)
		}
	}
	loader := filepath.Join(bullseye, "ld-2.31.so")
	checked := 0
	for _, p := range corpusProjects {
		if !want[p] {
			continue
		}
		delete(want, p)
		t.Run(p, func(t *testing.T) {
			srcName := p
			if s, ok := corpusSource[p]; ok {
				srcName = s
			}
			for _, s := range append([]string{srcName}, corpusDeps[p]...) {
				if _, err := os.Stat(filepath.Join(srcRoot, s)); err != nil {
					t.Fatalf("no source of %s (run .ci/fetch-cccorpus.sh %s): %v", s, s, err)
				}
			}
			src := filepath.Join(srcRoot, srcName)
			dir := filepath.Join(work, p)
			start := time.Now()
			native := corpusBuild(t, scripts, p, src, filepath.Join(dir, "native"), corpusEnv{cc: "gcc", cxx: "g++", pkgConfig: "pkg-config", srcRoot: srcRoot})
			nativeTime := time.Since(start)
			start = time.Now()
			floored := corpusBuild(t, scripts, p, src, filepath.Join(dir, "abifloor"), corpusEnv{cc: filepath.Join(wrap, "cc"), cxx: filepath.Join(wrap, "c++"),
				pkgConfig: filepath.Join(wrap, "pkg-config"), toolchain: filepath.Join(wrap, "toolchain.cmake"), floored: true, srcRoot: srcRoot})
			t.Logf("%s: built natively in %v, through the wrappers in %v", p, nativeTime.Round(time.Second), time.Since(start).Round(time.Second))
			elves := objdumpFloor(t, floored, corpusFloor)
			t.Logf("%s: %d ELF files, floor by objdump -T: %s", p, len(elves), maxRelease(elves))
			libPath := bullseye + ":" + filepath.Join(floored, "lib")
			if libs := corpusTargetLibs[p]; len(libs) > 0 {
				d := filepath.Join(dir, "target-libs")
				copyHostLibs(t, d, libs)
				libPath += ":" + d
			}
			want := corpusRun(t, scripts, p, native, filepath.Join(dir, "run-native"), "")
			got := corpusRun(t, scripts, p, floored, filepath.Join(dir, "run-231"), loader+" --library-path "+libPath)
			if got != want {
				t.Errorf("%s: on glibc 2.31 the programs print\n%s\nthe native build prints\n%s", p, got, want)
			}
		})
		checked++
	}
	if want["go"] {
		delete(want, "go")
		t.Run("go", func(t *testing.T) {
			corpusGo(t, filepath.Join(work, "go"), filepath.Join(wrap, "cc"), loader, bullseye)
		})
		checked++
	}
	for p := range want {
		t.Errorf("ABIFLOOR_CCCORPUS names %q, which is not in the corpus %v or go", p, corpusProjects)
	}
	if checked == 0 {
		t.Fatal("ABIFLOOR_CCCORPUS selected nothing")
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// corpusEnv is what build.sh builds with: the compilers, pkg-config and
// CMake's toolchain file ("" none), whether this is the build for the
// floor, and where the other projects' sources are.
type corpusEnv struct {
	cc, cxx, pkgConfig, toolchain, srcRoot string
	floored                                bool
}

// corpusBuild copies src into dir and builds it there with build.sh and
// the given compilers; it returns the install prefix.
func corpusBuild(t *testing.T, scripts, p, src, dir string, e corpusEnv) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "src")
	if out, err := exec.Command("cp", "-a", src, tree).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "prefix")
	cmd := exec.Command("sh", filepath.Join(scripts, "build.sh"), p, tree, prefix)
	cmd.Env = append(os.Environ(), "CC="+e.cc, "CXX="+e.cxx, "PKG_CONFIG="+e.pkgConfig, "TOOLCHAIN="+e.toolchain, "SRCROOT="+e.srcRoot, "JOBS=2")
	if e.floored {
		cmd.Env = append(cmd.Env, "FLOORED=1")
	}
	out, err := cmd.CombinedOutput()
	os.WriteFile(filepath.Join(dir, "build.log"), out, 0o644)
	if err != nil {
		t.Fatalf("build of %s with CC=%s failed: %v\n%s", p, e.cc, err, tail(out, 40))
	}
	if e.floored {
		// What build.sh says of the floor (tmux: configure without
		// libraries for it) goes into the test's log.
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, p+" without") {
				t.Log(l)
			}
		}
	}
	return prefix
}

// copyHostLibs copies the named libraries of this host (the ones
// corpusTargetLibs says the target has too) into dir.
func copyHostLibs(t *testing.T, dir string, names []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		var b []byte
		var err error
		for _, d := range []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"} {
			if b, err = os.ReadFile(filepath.Join(d, n)); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("%s, which the target has, is not on this host: %v", n, err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// corpusRun runs run.sh over the programs under prefix, each through run
// (empty: natively), and returns what they print.
func corpusRun(t *testing.T, scripts, p, prefix, dir, run string) string {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(scripts, "run.sh"), p, prefix, dir)
	cmd.Env = append(os.Environ(), "RUN="+run, "LD_LIBRARY_PATH="+filepath.Join(prefix, "lib"), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run of %s (RUN=%q) failed: %v\nstdout:\n%s\nstderr:\n%s", p, run, err, out, tail(stderr.Bytes(), 20))
	}
	if len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("run of %s printed nothing", p)
	}
	return string(out)
}

// objdumpFloor runs objdump -T on every ELF file under prefix and fails
// the test for each GLIBC_ version above floor; it returns each file's
// highest GLIBC_ release. No ELF file at all fails too.
func objdumpFloor(t *testing.T, prefix, floor string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(prefix, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !isELF(path) {
			return nil
		}
		out, err := exec.Command("objdump", "-T", path).Output()
		if err != nil {
			// Static archives' members and objects have no dynamic table.
			if f, e := elf.Open(path); e == nil {
				typ := f.Type
				f.Close()
				if typ == elf.ET_REL {
					return nil
				}
			}
			t.Errorf("objdump -T %s: %v", path, err)
			return nil
		}
		max := ""
		for _, m := range glibcVer.FindAllStringSubmatch(string(out), -1) {
			if m[1] == "PRIVATE" {
				t.Errorf("%s needs GLIBC_PRIVATE", path)
				continue
			}
			if max == "" || releaseLess(max, m[1]) {
				max = m[1]
			}
		}
		if max != "" && releaseLess(floor, max) {
			t.Errorf("%s: objdump -T finds GLIBC_%s > %s", path, max, floor)
		}
		rel, _ := filepath.Rel(prefix, path)
		got[rel] = max
		return nil
	})
	if len(got) == 0 {
		t.Fatalf("no ELF file under %s", prefix)
	}
	return got
}

var glibcVer = regexp.MustCompile(`\bGLIBC_([0-9.]+[0-9]|PRIVATE)\b`)

func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	n, _ := f.Read(b[:])
	return n == 4 && string(b[:]) == elf.ELFMAG
}

// releaseLess orders glibc releases as numbers: 2.2.5 < 2.10.
func releaseLess(a, b string) bool {
	x, y := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(x) || i < len(y); i++ {
		var m, n int
		if i < len(x) {
			m, _ = strconv.Atoi(x[i])
		}
		if i < len(y) {
			n, _ = strconv.Atoi(y[i])
		}
		if m != n {
			return m < n
		}
	}
	return false
}

func maxRelease(files map[string]string) string {
	max := ""
	for _, r := range files {
		if r != "" && (max == "" || releaseLess(max, r)) {
			max = r
		}
	}
	return max
}

func tail(b []byte, n int) []byte {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return bytes.Join(lines, []byte("\n"))
}

// corpusGoVersion is github.com/mattn/go-sqlite3's release the Go program
// is built with (the newest the module proxy lists here).
const corpusGoVersion = "v1.14.53"

// corpusGoMain: three cgo programs most Go binaries resemble: the cgo
// resolver (net), os/user's getpwuid_r, and SQLite linked in through
// go-sqlite3.
var corpusGoMain = map[string]string{
	"net/main.go": `package main

import (
	"fmt"
	"net"
	"sort"
)

func main() {
	addrs, err := net.LookupHost("localhost")
	if err != nil {
		panic(err)
	}
	sort.Strings(addrs)
	fmt.Println("localhost:", addrs)
}
`,
	"user/main.go": `package main

import (
	"fmt"
	"os/user"
)

func main() {
	u, err := user.LookupId("0")
	if err != nil {
		panic(err)
	}
	g, err := user.LookupGroupId("0")
	if err != nil {
		panic(err)
	}
	fmt.Println("uid 0:", u.Username, u.HomeDir, "gid 0:", g.Name)
}
`,
	"sqlite/main.go": `package main

import (
	"database/sql"
	"fmt"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	var v, s string
	var n int
	if err := db.QueryRow("select sqlite_version(), upper('abifloor'), 6*7").Scan(&v, &s, &n); err != nil {
		panic(err)
	}
	fmt.Println("sqlite", v != "", s, n)
}
`,
}

// corpusGo builds the Go programs with CC=gcc and CC= the installed
// wrapper, checks the wrapper's outputs with objdump -T and runs them under
// the glibc 2.31 loader (GODEBUG=netdns=cgo, so that net resolves through
// glibc), comparing with the native build.
func corpusGo(t *testing.T, dir, cc, loader, bullseye string) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("ABIFLOOR_CCCORPUS is set but go is not on PATH")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module corpus\n\ngo 1.21\n\nrequire github.com/mattn/go-sqlite3 "+corpusGoVersion+"\n"), 0o644)
	for name, src := range corpusGoMain {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
	}
	goCmd := func(env []string, args ...string) []byte {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"CGO_ENABLED=1", "GOFLAGS=-mod=mod"}, env...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s (%s): %v\n%s", strings.Join(args, " "), strings.Join(env, " "), err, tail(out, 40))
		}
		return out
	}
	goCmd(nil, "mod", "tidy")
	for _, prog := range []string{"net", "user", "sqlite"} {
		nat := filepath.Join(dir, "bin", prog+".native")
		flo := filepath.Join(dir, "bin", prog)
		goCmd([]string{"CC=gcc"}, "build", "-o", nat, "./"+prog)
		goCmd([]string{"CC=" + cc}, "build", "-o", flo, "./"+prog)
		files := objdumpFloor(t, flo, corpusFloor)
		t.Logf("go %s: floor by objdump -T: %s", prog, maxRelease(files))
		want := runOut(t, nat)
		got := runOut(t, loader, "--library-path", bullseye, flo)
		if got != want {
			t.Errorf("go %s: on glibc 2.31 prints %q, natively %q", prog, got, want)
		}
	}
}

func runOut(t *testing.T, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=netdns=cgo")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}
