package abiread_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/abi/abimember"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/internal/fixture"
)

// TestSmallInputsStaySmall rebuilds issue 19's last attacks: inputs of
// at most about 1 MB that made abi dump hold far more than their size.
//   - A .tar.gz of 250 KB holding a 250 MiB library (its own bytes, not
//     sparse zeros): 266 MB and 2.8 GB to dump before (its .debug_str one
//     string every DIE names). Now a bomb: abi reads at most
//     artefact.HoldLimit of an artefact's size.
//   - The same at 30 MiB, beside 900 KB of noise that buys the allowance:
//     348 MB. Now the member goes to a temporary file and the names are
//     refused.
//   - A plain 1.1 MB library whose zlib .debug_str expands to 31 MiB: 360
//     MB. The names are refused; at 200 MiB (ratio 160), the section.
//   - A library of 28 MiB, mostly padding, in 1 MB of .tar.gz: read, with
//     the member on disk.
//
// Each runs in a child that reports its peak resident memory, held to the
// issue's bound of 256 MB; the error each ends in is checked here.
func TestSmallInputsStaySmall(t *testing.T) {
	if p := os.Getenv("ABIFLOOR_TEST_ABILOAD"); p != "" {
		a, _, err := abimember.LoadArg(context.Background(), p, abiread.Options{NoDefaultDebugDir: true}, nil)
		if err == nil {
			fmt.Printf("types %d\n", len(a.Types))
		}
		fmt.Printf("error %v\n%s\n", err, fixture.PeakMemoryLine())
		return
	}
	if testing.Short() {
		t.Skip("builds inputs that expand to 250 MiB")
	}
	dir := t.TempDir()
	big := abiread.ReadFile(t, abiread.SharedStringLib(t, dir, 250<<20, false, 0))
	mid := abiread.ReadFile(t, abiread.SharedStringLib(t, dir, 30<<20, false, 0))
	padded := append(abiread.ReadFile(t, abiread.SharedStringLib(t, dir, 64, false, 0)), bytes.Repeat([]byte("pad"), 28<<20/3)...)
	cases := []struct {
		name, path string
		want       string // in the error; "" for none
	}{
		{"member of 250 MiB", abiread.TarGz(t, filepath.Join(dir, "big.tar.gz"), map[string][]byte{"lib.so": big}), "decompression bomb"},
		{"member of 30 MiB, shared string", abiread.TarGz(t, filepath.Join(dir, "mid.tar.gz"), map[string][]byte{"noise": abiread.Noise(900 << 10), "lib.so": mid}), "names add up to too many bytes"},
		{"compressed .debug_str of 31 MiB", abiread.SharedStringLib(t, dir, 31<<20, true, 900<<10), "names add up to too many bytes"},
		{"compressed .debug_str of 200 MiB", abiread.SharedStringLib(t, dir, 200<<20, true, 0), "16 times the file's"},
		{"padded member of 28 MiB", abiread.TarGz(t, filepath.Join(dir, "pad.tar.gz"), map[string][]byte{"noise": abiread.Noise(900 << 10), "lib.so": padded}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, err := os.Stat(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() > 1<<20+200<<10 {
				t.Fatalf("the attack is %d bytes, not about 1 MB", st.Size())
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestSmallInputsStaySmall$", "-test.count=1")
			cmd.Env = append(os.Environ(), "ABIFLOOR_TEST_ABILOAD="+c.path)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the child: %v\n%s", err, out)
			}
			var gotErr string
			for _, l := range strings.Split(string(out), "\n") {
				if e, ok := strings.CutPrefix(l, "error "); ok {
					gotErr = e
				}
			}
			rss, ok := fixture.PeakMemory(string(out))
			if !ok {
				t.Skipf("no VmHWM in /proc/self/status: %s", out)
			}
			t.Logf("%d bytes: %v, peak RSS %d MB: %s", st.Size(), time.Since(start).Round(time.Millisecond), rss>>20, gotErr)
			if c.want == "" && gotErr != "<nil>" || !strings.Contains(gotErr, c.want) {
				t.Errorf("error %q, want one with %q", gotErr, c.want)
			}
			if rss > 256<<20 {
				t.Errorf("peak RSS %d MB, more than 256 MB", rss>>20)
			}
		})
	}
}
