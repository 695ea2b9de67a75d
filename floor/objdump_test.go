package floor

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/symver"
)

// TestAgreesWithObjdump checks the GLIBC and GLIBCXX floor of every ELF
// file under /usr against the "Version References" that binutils' objdump
// -p prints. This is the check teams run by hand today.
func TestAgreesWithObjdump(t *testing.T) {
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("objdump is not installed (Debian package binutils)")
	}
	if testing.Short() {
		t.Skip("reads every ELF file under /usr; skipped with -short")
	}
	res := Scan(context.Background(), []string{"/usr"}, Options{})
	var paths []string
	byPath := map[string]FileReport{}
	for _, f := range res.Files {
		if f.Error == nil {
			paths = append(paths, f.Path)
			byPath[f.Path] = f
		}
	}
	if len(paths) < 50 {
		t.Fatalf("only %d ELF files under /usr; the comparison would prove little", len(paths))
	}
	compared := 0
	for start := 0; start < len(paths); start += 256 {
		batch := paths[start:min(start+256, len(paths))]
		out, _ := exec.Command(objdump, append([]string{"-p"}, batch...)...).Output()
		for path, versions := range parseObjdump(out, batch) {
			want := map[string]string{}
			for _, v := range versions {
				if ns, ver, ok := symver.Split(v); ok {
					raise(want, ns, ver)
				} else if m, ok := markers[v]; ok {
					raise(want, m.Namespace, m.Version)
				}
			}
			// The file named alone (ScanFile: the compiler wrapper's
			// proof) is held to objdump as the tree's scan is.
			alone := ScanFile(context.Background(), path, Options{})
			if len(alone.Files) != 1 || alone.Files[0].Error != nil {
				t.Errorf("%s named alone: %+v", path, alone.Files)
				continue
			}
			for _, ns := range []string{"GLIBC", "GLIBCXX", "CXXABI", "GCC"} {
				if got := byPath[path].Floors; got[ns] != want[ns] {
					t.Errorf("%s: %s floor %q, objdump says %q", path, ns, got[ns], want[ns])
				}
				if got := alone.Files[0].Floors; got[ns] != want[ns] {
					t.Errorf("%s named alone: %s floor %q, objdump says %q", path, ns, got[ns], want[ns])
				}
			}
			compared++
		}
	}
	t.Logf("compared %d of %d ELF files with objdump -p, in the tree and named alone", compared, len(paths))
	if compared < len(paths)*9/10 {
		t.Errorf("objdump read only %d of %d files", compared, len(paths))
	}
}

// parseObjdump returns, for each file objdump described, the version
// names of its "Version References" section.
func parseObjdump(out []byte, paths []string) map[string][]string {
	known := map[string]bool{}
	for _, p := range paths {
		known[p] = true
	}
	res := map[string][]string{}
	var cur string
	inRefs := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, _, ok := strings.Cut(line, ":     file format "); ok && known[p] {
			cur, inRefs = p, false
			res[cur] = []string{}
			continue
		}
		switch {
		case cur == "":
		case line == "Version References:":
			inRefs = true
		case inRefs && strings.HasPrefix(line, "    0x"):
			fields := strings.Fields(line)
			res[cur] = append(res[cur], fields[len(fields)-1])
		case inRefs && !strings.HasPrefix(line, "  required from"):
			inRefs = false
		}
	}
	return res
}
