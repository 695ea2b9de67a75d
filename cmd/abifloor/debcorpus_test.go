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

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/targets"
)

// TestDebCorpus is the full verification corpus of issue 17: every real
// package of a list, fetched from this machine's apt mirror, is checked
// against its own claims alone (`abifloor check PKG`) and with the
// mirror's release as a target (`check --target debian-12 PKG`). Every
// one must exit 0 and say which claim held, except the packages with a
// real bug (zsh exits 1 naming hypot@GLIBC_2.35 and its Depends), and
// those whose relations name no libc, which claim nothing (exit 2 alone,
// 0 with the target). It downloads hundreds of packages, so it runs only
// when asked:
//
//	ABIFLOOR_DEBCORPUS=1               run it
//	ABIFLOOR_DEBCORPUS_LIST=FILE       package names, one a line (default:
//	                                   the packages issue 17 names)
//	ABIFLOOR_DEBCORPUS_DIR=DIR         keep the .deb files there and reuse
//	                                   them (default: a temporary directory)
//	ABIFLOOR_DEBCORPUS_TARGET=NAME     the target (default: this machine's
//	                                   release, from /etc/os-release)
//
// bench/debcorpus.sh makes the list (the installed packages that ship an
// ELF file) and runs it.
func TestDebCorpus(t *testing.T) {
	if os.Getenv("ABIFLOOR_DEBCORPUS") != "1" {
		t.Skip("the full package corpus runs only with ABIFLOOR_DEBCORPUS=1 (bench/debcorpus.sh)")
	}
	fixture.Need(t, "apt-get")
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
	// The mirror's own release as a target: every package on it must
	// load there, so `check --target` passes where the claims hold.
	target := os.Getenv("ABIFLOOR_DEBCORPUS_TARGET")
	if target == "" {
		if b, err := os.ReadFile("/etc/os-release"); err == nil {
			id := regexp.MustCompile(`(?m)^ID="?([a-z]+)"?$`).FindSubmatch(b)
			ver := regexp.MustCompile(`(?m)^VERSION_ID="?([0-9.]+)"?$`).FindSubmatch(b)
			if id != nil && ver != nil {
				target = string(id[1]) + "-" + string(ver[1])
			}
		}
	}
	if _, err := targets.Lookup(target); err != nil {
		t.Logf("no target for this release (%q: %v): only the claims are checked", target, err)
		target = ""
	}
	// The real bugs in the mirror's packages, each confirmed with
	// objdump -p: a symbol version above the package's own Depends.
	broken := map[string]string{
		"zsh":           "hypot@GLIBC_2.35",  // mathfunc.so; Depends: libc6 (>= 2.34)
		"libc-devtools": "GLIBC_ABI_DT_RELR", // memusagestat, sprof (DT_RELR, glibc 2.36); Depends: libc6 (>= 2.34)
	}
	holds := regexp.MustCompile(`(?m)^claim .*: (Pre-)?Depends: .*: holds$`)
	brokenClaim := regexp.MustCompile(`GLIBC 2\.3[0-9] > 2\.3[0-9] \((Pre-)?Depends: libc6 \(>= 2\.3[0-9]\)\)`)
	var checked, held, unfetched, targetOK int
	var noClaim []string
	var bad, found []string
	for _, n := range names {
		p := deb(n)
		if p == "" {
			unfetched++
			t.Logf("%s: not on the mirror (skipped)", n)
			continue
		}
		checked++
		args := [][]string{{"check", p}}
		if target != "" {
			args = append(args, []string{"check", "--target", target, p})
		}
		for i, a := range args {
			code, out := run(a...)
			how := strings.Join(a[:len(a)-1], " ")
			switch sym, isBroken := broken[n]; {
			case isBroken:
				if code != exitViolation || !strings.Contains(out, sym) || !brokenClaim.MatchString(out) {
					bad = append(bad, fmt.Sprintf("%s %s: exit %d, want 1 naming %s and its Depends\n%s", how, n, code, sym, lastLines([]byte(out), 12)))
				} else if i == 0 {
					found = append(found, n+" ("+sym+")")
				}
			case i == 0 && code == exitError && strings.Contains(out, "nothing to check against"):
				// A package whose relations name no libc (libc6
				// itself, a library that depends on another at
				// one version) claims nothing: an error that says so.
				noClaim = append(noClaim, n)
			case code != exitOK:
				bad = append(bad, fmt.Sprintf("%s %s: exit %d\n%s", how, n, code, lastLines([]byte(out), 12)))
			case i == 0 && !holds.MatchString(out):
				bad = append(bad, fmt.Sprintf("%s %s: exit 0 without saying which claim held\n%s", how, n, lastLines([]byte(out), 4)))
			case i == 0:
				held++
			default:
				targetOK++
			}
		}
	}
	t.Logf("corpus: %d names, %d checked, %d not on the mirror", len(names), checked, unfetched)
	t.Logf("check PKG: %d exit 0 saying which claim held, %d exit 1 on a real bug (%s), %d exit 2 claiming no libc (%s)", held, len(found), strings.Join(found, ", "), len(noClaim), strings.Join(noClaim, " "))
	if target != "" {
		t.Logf("check --target %s PKG: %d exit 0 (the packages above exit 1 there too)", target, targetOK)
	}
	t.Logf("%d wrong", len(bad))
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
