package ranges

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/ranges/table"
)

// chromium runs headless Chromium on a local page with everything that
// could reach the network turned off.
func chromium(t *testing.T, page string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,720"}, extra...)
	cmd := exec.CommandContext(ctx, "chromium", append(args, "file://"+page)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return out
}

// TestHTMLInChromium opens the timeline in headless Chromium: every range
// is drawn as a band, the script ran to its end without an error, and a
// screenshot is kept ($ABIFLOOR_ARTIFACTS, else the test's temp dir).
func TestHTMLInChromium(t *testing.T) {
	fixture.Need(t, "chromium")
	// 200 versions, with changes and reverts, as a driver table has.
	var vs []Version
	fps := []string{"a", "b", "a", "c", "d", "c", "a"}
	for i := 0; i < 200; i++ {
		vs = append(vs, Version{Name: fmt.Sprintf("5%02d.%d.%02d", 35+i/20, i%20, i%7), Fingerprint: "sha256:" + fps[(i/13)%len(fps)]})
	}
	big, err := New([]string{"NVOS21_PARAMETERS"}, vs)
	if err != nil {
		t.Fatal(err)
	}
	artifacts := os.Getenv("ABIFLOOR_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	for name, tab := range map[string]*table.Table{"small": sampleTable(t), "big": big} {
		dir := t.TempDir()
		page := filepath.Join(dir, name+".html")
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(f, tab, "ABI ranges ("+name+")"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		dom := string(chromium(t, page+"#selftest", "--dump-dom"))
		if strings.Contains(dom, `id="errors"`) {
			t.Errorf("%s: script errors: %s", name, regexp.MustCompile(`(?s)<pre id="errors">.*?</pre>`).FindString(dom))
		}
		m := regexp.MustCompile(`data-rendered="(\d+)"`).FindStringSubmatch(dom)
		if m == nil || m[1] != fmt.Sprint(len(tab.Ranges)) {
			t.Errorf("%s: data-rendered %v, want %d: the script did not finish", name, m, len(tab.Ranges))
		}
		if !strings.Contains(dom, `data-selftest="ok"`) {
			t.Errorf("%s: clicking the bands: %s", name, regexp.MustCompile(`data-selftest="[^"]*"`).FindString(dom))
		}
		for i := range tab.Ranges {
			if !strings.Contains(dom, fmt.Sprintf(`data-range="%d"`, i)) {
				t.Errorf("%s: range %d has no band", name, i)
			}
		}
		shot := filepath.Join(artifacts, "ranges-"+name+".png")
		chromium(t, page, "--screenshot="+shot)
		if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
			t.Errorf("%s: no screenshot: %v", name, err)
		}
		t.Logf("screenshot: %s", shot)
	}
}
