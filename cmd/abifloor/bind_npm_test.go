package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/internal/fixture"
)

// Pinned: the addon's RPATH names the libvips version it was built with,
// and its optionalDependencies pin that version.
const (
	sharpPkg   = "@img/sharp-linux-x64@0.35.5"
	libvipsPkg = "@img/sharp-libvips-linux-x64@1.3.4"
	sharpNode  = "sharp-linux-x64-0.35.5.node"
	libvipsSO  = "libvips-cpp.so.8.18.7"
)

// npmPacked returns the tarballs of pkgs, packed by npm into the user's
// abifloor cache (so a second run needs no network), or skips the test
// with the reason.
func npmPacked(t *testing.T, pkgs ...string) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("fetches npm packages")
	}
	fixture.Need(t, "npm")
	base, err := cache.DefaultDir(os.Getenv)
	if err != nil {
		t.Skipf("no cache directory for downloads: %v", err)
	}
	dir := filepath.Join(base, "testdata", "npm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("no cache directory for downloads: %v", err)
	}
	var out []string
	for _, pkg := range pkgs {
		// npm names the tarball @scope/name@v as scope-name-v.tgz.
		name, v, _ := strings.Cut(strings.TrimPrefix(pkg, "@"), "@")
		tgz := filepath.Join(dir, strings.ReplaceAll(name, "/", "-")+"-"+v+".tgz")
		if _, err := os.Stat(tgz); err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", "--fetch-retries=1", "--pack-destination", dir, pkg)
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Skipf("npm pack %s (registry out of reach?): %v\n%s", pkg, err, b)
			}
			if _, err := os.Stat(tgz); err != nil {
				t.Fatalf("npm pack %s wrote no %s:\n%s", pkg, tgz, b)
			}
		}
		out = append(out, tgz)
	}
	return out
}

// npmInstall lays out a package tarball as npm installs it:
// ROOT/node_modules/@scope/name, holding the tarball's package/.
func npmInstall(t *testing.T, root, pkg, tgz string) {
	t.Helper()
	name, _, _ := strings.Cut(strings.TrimPrefix(pkg, "@"), "@")
	dir := filepath.Join(root, "node_modules", "@"+name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("tar", "-xzf", tgz, "-C", dir, "--strip-components=1").CombinedOutput(); err != nil {
		t.Fatalf("tar -xzf %s: %v\n%s", tgz, err, b)
	}
}

type bindJSON struct {
	Files []struct {
		Path        string   `json:"path"`
		DiesAtStart bool     `json:"dies_at_start"`
		Missing     []string `json:"missing_libraries"`
		Libraries   []string `json:"libraries"`
		Unresolved  []struct {
			Name string `json:"name"`
		} `json:"unresolved"`
		HostProvided []struct {
			Name string `json:"name"`
			By   string `json:"by"`
		} `json:"host_provided"`
	} `json:"files"`
}

func bindOne(t *testing.T, path string, flags ...string) (int, bindJSON) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := run(context.Background(), env, append(append([]string{"bind", "--format", "json"}, flags...), path))
	var res bindJSON
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || len(res.Files) != 1 {
		t.Fatalf("bind %s: exit %d, %v\nstdout: %s\nstderr: %s", path, code, err, stdout.Bytes(), stderr.Bytes())
	}
	return code, res
}

// TestBindNpmSharp: sharp's native addon, installed by npm beside the
// libvips package it depends on, finds libvips-cpp through its RPATH
// ($ORIGIN/../../sharp-libvips-linux-x64/lib), as node's loader does;
// without that package it does not load, as node fails to require it.
func TestBindNpmSharp(t *testing.T) {
	fixture.Need(t, "tar")
	tgz := npmPacked(t, sharpPkg, libvipsPkg)
	root := t.TempDir()
	npmInstall(t, root, sharpPkg, tgz[0])
	npmInstall(t, root, libvipsPkg, tgz[1])
	addon := filepath.Join(root, "node_modules/@img/sharp-linux-x64/lib", sharpNode)
	vips := filepath.Join(root, "node_modules/@img/sharp-libvips-linux-x64/lib", libvipsSO)

	code, res := bindOne(t, addon)
	f := res.Files[0]
	if code != exitOK || f.DiesAtStart || len(f.Missing) != 0 {
		t.Errorf("bind %s: exit %d, dies at start %v, missing %v; want it to load", addon, code, f.DiesAtStart, f.Missing)
	}
	if !slices.Contains(f.Libraries, vips) {
		t.Errorf("libraries %v: want %s, through the RPATH", f.Libraries, vips)
	}
	// What no library provides is node's own API, bound against the
	// node executable that loads the addon.
	for _, u := range f.Unresolved {
		if !strings.HasPrefix(u.Name, "napi_") {
			t.Errorf("unresolved %s: want only node's napi_* functions", u.Name)
		}
	}
	node, _ := exec.LookPath("node")
	if node != "" {
		if b, err := exec.Command(node, "-e", "require(process.argv[1])", addon).CombinedOutput(); err != nil {
			t.Errorf("node cannot require %s, bind says it loads: %v\n%s", addon, err, b)
		}
		// With node as its host (issue 29, item 9), node's load defines
		// every napi_* it uses: none is left unresolved, each has its
		// provider.
		code, res := bindOne(t, addon, "--host", node)
		f := res.Files[0]
		if code != exitOK || len(f.Unresolved) != 0 || len(f.HostProvided) == 0 {
			t.Errorf("bind --host %s: exit %d, unresolved %v, host provided %d; want every napi_* from the host", node, code, f.Unresolved, len(f.HostProvided))
		}
		for _, h := range f.HostProvided {
			if !strings.HasPrefix(h.Name, "napi_") || h.By == "" {
				t.Errorf("host provided %s by %q: want napi_* with a provider", h.Name, h.By)
			}
		}
	}

	// Without the libvips package, the addon does not load.
	if err := os.RemoveAll(filepath.Join(root, "node_modules/@img/sharp-libvips-linux-x64")); err != nil {
		t.Fatal(err)
	}
	code, res = bindOne(t, addon)
	if f := res.Files[0]; code != exitViolation || !f.DiesAtStart || !slices.Contains(f.Missing, libvipsSO) {
		t.Errorf("bind without libvips: exit %d, dies at start %v, missing %v; want exit %d and %s missing", code, f.DiesAtStart, f.Missing, exitViolation, libvipsSO)
	}
	if node != "" {
		b, err := exec.Command(node, "-e", "require(process.argv[1])", addon).CombinedOutput()
		if err == nil || !bytes.Contains(b, []byte(libvipsSO)) {
			t.Errorf("node requires %s without libvips (%v):\n%s", addon, err, b)
		}
	}
}

// TestBindInterrupted (issue 17, item 1): a bind whose context is
// cancelled (the first SIGINT or SIGTERM) exits 2, says how far it got,
// never reports the files it did not audit, and its JSON says
// "incomplete": true.
func TestBindInterrupted(t *testing.T) {
	dirs := []string{"/usr/bin", "/usr/lib"}
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			t.Skipf("no %s to audit", d)
		}
	}
	for _, format := range []string{"text", "json"} {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		code := runBind(ctx, env, append([]string{"--format", format}, dirs...))
		late := time.Since(start) - 200*time.Millisecond
		t.Logf("%s: exit %d, %v after the cancel: %s", format, code, late, strings.TrimSpace(stderr.String()))
		if code != exitError || !strings.Contains(stderr.String(), "abifloor bind: incomplete: interrupted after ") {
			t.Errorf("%s: exit %d, stderr %q", format, code, stderr.String())
		}
		if format == "json" {
			var res struct {
				Incomplete bool              `json:"incomplete"`
				Found      int               `json:"found"`
				Files      []json.RawMessage `json:"files"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || !res.Incomplete || len(res.Files) > res.Found {
				t.Errorf("json: incomplete %v, %d of %d (%v)", res.Incomplete, len(res.Files), res.Found, err)
			}
		}
	}
}

// TestBindProgressCleared (issue 22, item 6): on a terminal, the
// progress line is cleared before the first report is written, as
// check's is.
func TestBindProgressCleared(t *testing.T) {
	if _, err := os.Stat("/usr/bin"); err != nil {
		t.Skip("no /usr/bin to audit")
	}
	var both bytes.Buffer // stdout and stderr on one terminal
	env := &cmdEnv{stdout: &both, stderr: &both, getenv: func(string) string { return "" }, errTTY: true}
	runBind(context.Background(), env, []string{"/usr/bin"})
	out := both.String()
	first := strings.Index(out, ": loads")
	if first < 0 {
		first = strings.Index(out, ": dies at start")
	}
	clear := strings.Index(out, "\r\x1b[K")
	if first < 0 || clear < 0 || clear > first {
		t.Errorf("progress cleared at %d, first report at %d", clear, first)
	}
	if strings.Contains(out[first:], "files\x1b[K") {
		t.Errorf("a progress line after the first report")
	}
}
