package artefact

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestRealDebAbsoluteLinks reads a real Debian package fetched from this
// machine's mirror at test time: tar ships /etc/rmt -> /usr/sbin/rmt, an
// absolute link that resolves inside the package's own root (issue 17
// item 2), so no member may fail as a link out of the artefact.
func TestRealDebAbsoluteLinks(t *testing.T) {
	fixture.Need(t, "apt-get")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "apt-get", "download", "tar")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("apt-get download tar failed (no mirror?): %v\n%s", err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dir, "*.deb"))
	if len(debs) != 1 {
		t.Skipf("apt-get download tar left %d .deb files", len(debs))
	}
	elf := 0
	err := Walk(context.Background(), debs[0], Options{}, func(m *Member) error {
		if m.Err != nil {
			t.Errorf("%s: %v", m.Name, m.Err)
		}
		if m.Content != nil {
			elf++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if elf == 0 {
		t.Errorf("no ELF member read from %s", debs[0])
	}
}

// TestWalkCancelled: a walk whose context is cancelled stops and says so,
// through the xz program as through the Go readers.
func TestWalkCancelled(t *testing.T) {
	fixture.Need(t, "xz")
	var members []ent
	for i := range 200 {
		members = append(members, ent{name: "bin/p" + string(rune('a'+i%26)) + string(rune('a'+i/26)), data: make([]byte, 64<<10)})
	}
	raw := mkTar(t, members)
	cmd := exec.Command("xz", "-c", "-0")
	cmd.Stdin = bytes.NewReader(raw)
	xzd, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, noTools := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		err := WalkReaderAt(ctx, bytes.NewReader(xzd), int64(len(xzd)), Options{noTools: noTools, Select: func([]byte) bool { return true }}, func(m *Member) error {
			if n++; n == 3 {
				cancel()
			}
			return nil
		})
		cancel()
		if err == nil || ctx.Err() == nil {
			t.Errorf("noTools=%v: cancelled walk returned %v after %d members", noTools, err, n)
		}
		if n > 3 {
			t.Errorf("noTools=%v: %d members after cancellation", noTools, n-3)
		}
	}
}
