package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
)

// multitoolVersion is the SARIF Multitool release the test validates with.
const multitoolVersion = "5.7.0"

// TestSARIFValidates writes the SARIF of check, bind and diff on fixtures
// compiled now and validates every log with Microsoft's SARIF Multitool
// (npm package @microsoft/sarif-multitool-linux, fetched with npm pack
// and cached), which checks the logs against the SARIF 2.1.0 JSON schema
// it ships: any error fails the test. Without npm, the registry or an
// x86-64 Linux host, it skips and says why. The logs are also checked
// here: every result's rule is listed, every level is SARIF's.
func TestSARIFValidates(t *testing.T) {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gcc := func(args ...string) {
		t.Helper()
		cmd := exec.Command("gcc", args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
	}
	write("new.c", "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n")
	write("app.c", "void gone(void);\nint main(int c, char **v) { if (c > 5) gone(); return 0; }\n")
	write("v1.c", "struct s { int a; };\nint get(struct s *p) { return p->a; }\n")
	write("v2.c", "struct s { long b; int a; };\nint get(struct s *p) { return p->a; }\nint more(void) { return 1; }\n")
	gcc("-shared", "-fPIC", "-o", "libnew.so", "new.c", "-lz")
	// With lines: its results are placed at the source (issue 31),
	// once inlined.
	write("why.c", "#include <string.h>\nstatic void put(char *d, const char *s, size_t n) { memcpy(d, s, n); }\nvoid copy(char *d, const char *s, size_t n) { put(d, s, n); d[n] = 0; }\n")
	gcc("-shared", "-fPIC", "-g", "-O2", "-o", "libwhy.so", "why.c")
	gcc("-o", "app-lazy", "app.c", "-Wl,--unresolved-symbols=ignore-in-object-files", "-rdynamic", "-Wl,-z,lazy")
	gcc("-o", "app-now", "app.c", "-Wl,--unresolved-symbols=ignore-in-object-files", "-rdynamic", "-Wl,-z,now")
	gcc("-shared", "-fPIC", "-g", "-o", "libv1.so", "v1.c")
	gcc("-shared", "-fPIC", "-g", "-o", "libv2.so", "v2.c")
	write("broken.so", "\x7fELF\x02\x01\x01")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }

	var logs []string
	for i, args := range [][]string{
		{"check", "--format", "sarif", "--max", "GLIBC=2.12", "--max", "FOO=1", p("libnew.so"), p("broken.so")},
		{"check", "--format", "sarif", "--target", "manylinux_2_5", p("libnew.so")},
		{"check", "--format", "sarif", "--max", "GLIBC=9", p("libnew.so")},
		{"check", "--format", "sarif", "--max", "GLIBC=9", p("empty")},
		{"check", "--format", "sarif", "--target", "manylinux_2_12", p("libwhy.so"), p("libnew.so")},
		{"bind", "--format", "sarif", p("app-lazy"), p("app-now")},
		{"diff", "--format", "sarif", p("libv1.so"), p("libv2.so")},
	} {
		var stdout, stderr bytes.Buffer
		// The fixtures' directory is the checkout.
		getenv := func(k string) string {
			if k == "GITHUB_WORKSPACE" {
				return dir
			}
			return ""
		}
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: getenv}
		run(context.Background(), env, args)
		checkSARIFShape(t, args, stdout.Bytes())
		if strings.HasSuffix(args[len(args)-2], "libwhy.so") && !strings.Contains(stdout.String(), `"uri": "why.c",`) {
			t.Errorf("abifloor %v: no result at why.c:\n%s", args, stdout.String())
		}
		logs = append(logs, write(strings.Join([]string{"log", string(rune('a' + i)), ".sarif"}, ""), stdout.String()))
	}
	// A run that could not start (issue 29 item 3): --sarif still gets a
	// log, whose invocation failed.
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	args := []string{"check", "--format", "github", "--sarif", p("usage.sarif"), "--target", "ubuntu-2204", p("libnew.so")}
	if code := run(context.Background(), env, args); code != exitError {
		t.Errorf("%v: exit %d", args, code)
	}
	b, err := os.ReadFile(p("usage.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	checkSARIFShape(t, args, b)
	logs = append(logs, p("usage.sarif"))

	tool := multitool(t)
	out := filepath.Join(dir, "validation.sarif")
	// The files come first: --log takes every value after it.
	cmd := exec.Command(tool, append(append([]string{"validate"}, logs...), "--rule-kind", "Gh;Sarif", "-o", out, "--log", "ForceOverwrite")...)
	cmd.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1", "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sarif validate: %v\n%s", err, b)
	}
	var v struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Level   string `json:"level"`
				Message struct {
					Text      string   `json:"text"`
					Arguments []string `json:"arguments"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	b, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.Runs) != 1 {
		t.Fatalf("validation log: %v", err)
	}
	warnings := 0
	for _, r := range v.Runs[0].Results {
		where := ""
		if len(r.Locations) > 0 {
			where = r.Locations[0].PhysicalLocation.ArtifactLocation.URI
		}
		if r.Level == "error" {
			t.Errorf("%s: %s %s %v", where, r.RuleID, r.Message.Text, r.Message.Arguments)
		} else {
			warnings++
		}
	}
	// The validator reports style advice as warnings (no region in a
	// binary, no informationUri); their presence proves it read the logs.
	if warnings == 0 {
		t.Error("the validator reported nothing at all: did it read the logs?")
	}
}

// checkSARIFShape checks what the schema cannot: every result's rule is
// in the driver's rules at its ruleIndex.
func checkSARIFShape(t *testing.T, args []string, b []byte) {
	t.Helper()
	var l struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Version != "2.1.0" || len(l.Runs) != 1 {
		t.Fatalf("abifloor %v: not a SARIF 2.1.0 log of one run (%v):\n%s", args, err, b)
	}
	run := l.Runs[0]
	if run.Tool.Driver.Name != "abifloor" {
		t.Errorf("abifloor %v: driver %q", args, run.Tool.Driver.Name)
	}
	for _, r := range run.Results {
		if r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("abifloor %v: result of %s has ruleIndex %d", args, r.RuleID, r.RuleIndex)
		}
		switch r.Level {
		case "error", "warning", "note":
		default:
			t.Errorf("abifloor %v: level %q", args, r.Level)
		}
	}
	last := args[len(args)-1]
	if len(args) > 4 && args[4] == "GLIBC=9" {
		want := 0
		if strings.HasSuffix(last, "empty") {
			want = 1 // floor/nothing-checked
		}
		if len(run.Results) != want {
			t.Errorf("abifloor %v: %d results, want %d", args, len(run.Results), want)
		}
	}
}

// multitool returns the path of the SARIF Multitool, fetched with npm
// pack into the user cache once.
func multitool(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the SARIF Multitool package is built for x86-64 Linux")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for the SARIF Multitool: %v", err)
	}
	dir := filepath.Join(cache, "abifloor-test", "sarif-multitool-linux-"+multitoolVersion)
	tool := filepath.Join(dir, "package", "Sarif.Multitool")
	if _, err := os.Stat(tool); err == nil {
		return tool
	}
	fixture.Need(t, "npm")
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: cannot fetch @microsoft/sarif-multitool-linux to validate SARIF")
	}
	tmp := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "--pack-destination", tmp, "@microsoft/sarif-multitool-linux@"+multitoolVersion)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm pack @microsoft/sarif-multitool-linux@%s failed (registry unreachable?): %v\n%s", multitoolVersion, err, b)
	}
	tgz := filepath.Join(tmp, "microsoft-sarif-multitool-linux-"+multitoolVersion+".tgz")
	staging := dir + ".tmp"
	os.RemoveAll(staging)
	if err := untgz(tgz, staging); err != nil {
		t.Fatalf("unpacking %s: %v", tgz, err)
	}
	if err := os.Chmod(filepath.Join(staging, "package", "Sarif.Multitool"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Renamed into place whole, so a concurrent run never sees half.
	if err := os.Rename(staging, dir); err != nil {
		if _, statErr := os.Stat(tool); statErr != nil {
			t.Fatal(err)
		}
	}
	return tool
}

func untgz(path, dst string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		out, err := os.Create(p)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, io.LimitReader(tr, 1<<30))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}
