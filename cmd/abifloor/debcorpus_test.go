package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDebCorpus is the full verification corpus of issue 17: every real
// package of a list, fetched from this machine's apt mirror, is checked
// against its own claims alone (`abifloor check PKG`). Every one must
// exit 0 and say which claim held, except zsh, which exits 1 naming
// hypot@GLIBC_2.35 and its Depends. It downloads hundreds of packages,
// so it runs only when asked:
//
//	ABIFLOOR_DEBCORPUS=1               run it
//	ABIFLOOR_DEBCORPUS_LIST=FILE       package names, one a line (default:
//	                                   the packages issue 17 names)
//	ABIFLOOR_DEBCORPUS_DIR=DIR         keep the .deb files there and reuse
//	                                   them (default: a temporary directory)
//
// bench/debcorpus.sh makes the list (the installed packages that ship an
// ELF file) and runs it.
func TestDebCorpus(t *testing.T) {
	if os.Getenv("ABIFLOOR_DEBCORPUS") != "1" {
		t.Skip("the full package corpus runs only with ABIFLOOR_DEBCORPUS=1 (bench/debcorpus.sh)")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("apt-get is not installed")
	}
	names := []string{"tar", "systemd", "sudo", "openssl", "libc6", "kmod", "iproute2", "udev", "libpython3.11-minimal", "zsh", "curl", "coreutils"}
	if list := os.Getenv("ABIFLOOR_DEBCORPUS_LIST"); list != "" {
		b, err := os.ReadFile(list)
		if err != nil {
			t.Fatal(err)
		}
		names = nil
		for _, l := range strings.Fields(string(b)) {
			if !strings.HasPrefix(l, "#") {
				names = append(names, l)
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	dir := os.Getenv("ABIFLOOR_DEBCORPUS_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	deb := func(name string) string {
		m, _ := filepath.Glob(filepath.Join(dir, name+"_*.deb"))
		if len(m) == 0 {
			return ""
		}
		slices.Sort(m)
		return m[len(m)-1]
	}
	var missing []string
	for _, n := range names {
		if deb(n) == "" {
			missing = append(missing, n)
		}
	}
	// One apt-get for all; a name the mirror lacks fails the batch, so
	// then each is fetched alone and the ones it has not are counted.
	if len(missing) > 0 {
		cmd := exec.Command("apt-get", append([]string{"download", "-q"}, missing...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Logf("apt-get download of %d packages: %v (fetching one by one)\n%s", len(missing), err, lastLines(b, 5))
			for _, n := range missing {
				cmd := exec.Command("apt-get", "download", "-q", n)
				cmd.Dir = dir
				cmd.Run()
			}
		}
	}
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		code := lookupCommand(args[0]).run(context.Background(), env, args[1:])
		return code, stdout.String() + stderr.String()
	}
	holds := regexp.MustCompile(`(?m)^claim .*: Depends: .*: holds$`)
	zshClaim := regexp.MustCompile(`GLIBC 2\.35 > 2\.3[0-4] \(Depends: libc6 \(>= 2\.3[0-4]\)\)`)
	var checked, ok, noClaim, unfetched int
	var bad []string
	for _, n := range names {
		p := deb(n)
		if p == "" {
			unfetched++
			t.Logf("%s: not on the mirror (skipped)", n)
			continue
		}
		checked++
		code, out := run("check", p)
		switch {
		case n == "zsh":
			if code != exitViolation || !strings.Contains(out, "hypot@GLIBC_2.35") || !zshClaim.MatchString(out) {
				bad = append(bad, fmt.Sprintf("zsh: exit %d, want 1 naming hypot@GLIBC_2.35 and its Depends\n%s", code, out))
			}
		case code != exitOK:
			bad = append(bad, fmt.Sprintf("%s: exit %d\n%s", n, code, lastLines([]byte(out), 12)))
		case !holds.MatchString(out):
			// A package with ELF files and a libc claim says which
			// held; one whose ELF files need no libc has none to say.
			noClaim++
			t.Logf("%s: exit 0 with no Depends claim line:\n%s", n, lastLines([]byte(out), 4))
		default:
			ok++
		}
	}
	t.Logf("corpus: %d names, %d checked, %d not on the mirror; %d exit 0 naming the claim that held, %d exit 0 with no claim line, zsh %s, %d wrong",
		len(names), checked, unfetched, ok, noClaim, map[bool]string{true: "exits 1 as it must", false: "wrong"}[!slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, "zsh:") })], len(bad))
	for _, b := range bad {
		t.Error(b)
	}
	if checked == 0 {
		t.Fatal("no package was fetched")
	}
}

// lastLines is the last n lines of b.
func lastLines(b []byte, n int) string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
