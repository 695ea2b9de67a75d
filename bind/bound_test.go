package bind

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/elfgen"
)

// missingNames are n DT_NEEDED names no directory holds.
func missingNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("libabsent%d.so", i)
	}
	return out
}

// TestSearchFanOut (issue 19, item 5): R RPATH directories × N missing
// DT_NEEDED entries once cost R·N file probes (an 85 KB file took 30 s
// and 470 MB). Each directory is now looked at once per run, so the cost
// follows the size of the file, on this machine and under a sysroot.
func TestSearchFanOut(t *testing.T) {
	var dirs []string
	for i := range 1000 {
		dirs = append(dirs, fmt.Sprintf("/nonexistent/d%d", i))
	}
	// Directories that exist, named many ways (ld.so searches each name
	// once; these all reach one directory).
	here := t.TempDir()
	for i := range 200 {
		dirs = append(dirs, here+strings.Repeat("/.", i))
	}
	b := elfgen.Needing(missingNames(2000), strings.Join(dirs, ":"), "")
	p := filepath.Join(here, "fanout")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{}, {Sysroot: here}} {
		var rep FileReport
		arg := p
		if opt.Sysroot != "" {
			arg = filepath.Join(here, "fanout")
		}
		start := time.Now()
		n := elfgen.Allocated(func() { rep = audit1(t, opt, arg) })
		t.Logf("sysroot %q: %d KB file, %d MB allocated, %v", opt.Sysroot, len(b)>>10, n>>20, time.Since(start))
		if !rep.DiesAtStart || len(rep.MissingLibraries) != 2000 {
			t.Fatalf("verdict: dies %v, %d missing", rep.DiesAtStart, len(rep.MissingLibraries))
		}
		if n > 64*uint64(len(b)) {
			t.Errorf("a %d KB file allocated %d MB, over 64× its size", len(b)>>10, n>>20)
		}
	}
}

// TestLongRpath (issue 19, item 6): an RPATH of 10,000 "$ORIGIN/../"
// components expands past PATH_MAX, where open(2) fails, so ld.so finds
// nothing there; it printed an 80 KB "skipped" line per missing library.
// The next variant splits it into 10,000 directories of every depth, each
// under PATH_MAX. Either way the report is at most 100× the input.
func TestLongRpath(t *testing.T) {
	var depths []string
	for i := range 2000 {
		depths = append(depths, "$ORIGIN"+strings.Repeat("/..", i%60))
	}
	for name, rpath := range map[string]string{
		"one long path":  strings.Repeat("$ORIGIN/../", 10000),
		"many depths":    strings.Join(depths, ":"),
		"long and short": strings.Repeat("$ORIGIN/../", 400) + ":" + strings.Repeat("$ORIGIN/x/", 400),
	} {
		b := elfgen.Needing(missingNames(200), rpath, rpath)
		p := filepath.Join(t.TempDir(), "long")
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		rep := audit1(t, Options{}, p)
		out, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d KB file, %d KB report", name, len(b)>>10, len(out)>>10)
		if len(out) > 100*len(b) {
			t.Errorf("%s: a %d KB file gave a %d KB report", name, len(b)>>10, len(out)>>10)
		}
		for _, s := range rep.Skipped {
			if len(s) > maxMessage+64 {
				t.Errorf("%s: a %d-byte skipped line", name, len(s))
			}
		}
	}
}

// TestSkippedBounded: a search passing over many candidates (here fifty
// libraries of another machine, one per RPATH directory) lists the first
// few and counts the rest.
func TestSkippedBounded(t *testing.T) {
	dir := t.TempDir()
	other := elfgen.Needing(nil, "", "")
	binary.LittleEndian.PutUint16(other[18:], 183) // EM_AARCH64
	var dirs []string
	for i := range 50 {
		d := filepath.Join(dir, fmt.Sprint(i))
		os.Mkdir(d, 0o755)
		os.WriteFile(filepath.Join(d, "libx.so"), other, 0o644)
		dirs = append(dirs, d)
	}
	p := filepath.Join(dir, "app")
	os.WriteFile(p, elfgen.Needing([]string{"libx.so"}, strings.Join(dirs, ":"), ""), 0o755)
	rep := audit1(t, Options{}, p)
	if len(rep.Skipped) != maxSkipped+1 || !strings.Contains(rep.Skipped[maxSkipped], fmt.Sprintf("%d more candidates for libx.so", 50-maxSkipped)) {
		t.Errorf("skipped: %q", rep.Skipped)
	}
	if !rep.DiesAtStart || !strings.Contains(rep.Skipped[0], "wrong architecture aarch64") {
		t.Errorf("report %+v", rep)
	}
}

// cacheBomb is an ld.so.cache whose n entries all name one string of
// size bytes, as name and path.
func cacheBomb(n, size int) []byte {
	const hdr, ent = 48, 24
	strOff := hdr + ent*n
	b := make([]byte, strOff+size+1)
	copy(b, newCacheMagic)
	le := binary.LittleEndian
	le.PutUint32(b[20:], uint32(n))
	b[28] = 2
	for i := range n {
		o := hdr + i*ent
		le.PutUint32(b[o:], 0x0303)
		le.PutUint32(b[o+4:], uint32(strOff))
		le.PutUint32(b[o+8:], uint32(strOff+i%64)) // overlapping paths too
	}
	for i := range size {
		b[strOff+i] = 'a' + byte(i%26)
	}
	return b
}

// TestCacheStringBomb (issue 19, item 7): 2,000 cache entries naming one
// 200 KB string cost 795 MB, a copy per entry. Strings are now views of
// the file read once, and longer than PATH_MAX they are passed over, as
// ld.so could open no such path.
func TestCacheStringBomb(t *testing.T) {
	for _, size := range []int{200 << 10, pathMax - 1} {
		b := cacheBomb(2000, size)
		var c *ldCache
		var err error
		n := elfgen.Allocated(func() { c, err = parseCache(b) })
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d-byte string: %d KB cache, %d KB allocated, %d entries kept", size, len(b)>>10, n>>10, c.Len())
		if n > 4*uint64(len(b))+1<<20 {
			t.Errorf("a %d KB cache allocated %d MB", len(b)>>10, n>>20)
		}
		if size >= pathMax && c.Len() != 0 {
			t.Errorf("%d entries longer than PATH_MAX kept", c.Len())
		}
		if size < pathMax && c.Len() != 2000 {
			t.Errorf("%d entries of 2000 kept", c.Len())
		}
	}
	// Under a sysroot, the whole audit stays small.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	b := cacheBomb(2000, 200<<10)
	os.WriteFile(filepath.Join(root, "etc", "ld.so.cache"), b, 0o644)
	os.WriteFile(filepath.Join(root, "app"), elfgen.Needing(missingNames(50), "", ""), 0o755)
	var rep FileReport
	n := elfgen.Allocated(func() { rep = audit1(t, Options{Sysroot: root}, filepath.Join(root, "app")) })
	if rep.Error != nil || !rep.DiesAtStart {
		t.Errorf("report %+v", rep)
	}
	if n > 8*uint64(len(b)) {
		t.Errorf("a %d KB cache cost the audit %d MB", len(b)>>10, n>>20)
	}
}

// TestAuditCancelled (issue 19, item 14; issue 17, item 1): a cancelled
// audit stops, says it is incomplete, and keeps no verdict it did not
// finish.
func TestAuditCancelled(t *testing.T) {
	dir := t.TempDir()
	b := elfgen.Needing(missingNames(20), "", "")
	for i := range 600 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d", i)), b, 0o755)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := New(Options{}).Audit(ctx, []string{dir})
	if !res.Incomplete || res.Found > 600 || len(res.Files) > res.Found {
		t.Errorf("cancelled before the start: incomplete %v, %d of %d", res.Incomplete, len(res.Files), res.Found)
	}
	res = New(Options{}).Audit(context.Background(), []string{dir})
	if res.Incomplete || len(res.Files) != 600 || res.Found != 600 {
		t.Errorf("whole run: incomplete %v, %d of %d", res.Incomplete, len(res.Files), res.Found)
	}
}
