package ranges

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/ranges/table"
	"github.com/abifloor/abifloor/symver"
)

// gvisorVersion is one driver version of gVisor's nvproxy ABI tree
// (pkg/sentry/devices/nvproxy/version.go): its parent, and whether it is
// the parent's ABI as it is (bare) or a function that changes it.
type gvisorVersion struct {
	Version, Parent string
	Bare            bool
}

// nvproxySurface derives nvproxy's surface from gVisor's public source, as
// docs/ranges.md describes: names are facts read from the text, no code is
// copied. Structs nvproxy mirrors field by field (ioctlInfo,
// ioctlInfoWithStructName) are read in full; those it copies as raw bytes
// (simpleIoctlInfo) are opaque; every ioctl, control command and
// allocation class name is a constant.
func nvproxySurface(src string) (*Surface, []gvisorVersion) {
	s := &Surface{
		Include: []string{"src/common/sdk/nvidia/inc", "src/common/shared/inc", "src/nvidia/arch/nvalloc/unix/include", "kernel-open/common/inc", "kernel-open/nvidia-uvm"},
		Headers: []string{"nvos.h", "nv_escape.h", "nv-ioctl.h", "nv-unix-nvos-params-wrappers.h", "class/*.h", "ctrl/*.h", "ctrl/*/*.h", "alloc/*.h", "nv-ioctl-numa.h", "uvm_ioctl.h", "uvm_linux_ioctl.h"},
	}
	types, opaque, consts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	quoted := regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"`)
	goType := regexp.MustCompile(`nvgpu\.([A-Za-z_][A-Za-z0-9_]*)\{\}`)
	for _, m := range regexp.MustCompile(`(simpleIoctlInfo|ioctlInfoWithStructName|ioctlInfo)\(([^\n]*)\)`).FindAllStringSubmatch(src, -1) {
		names := quoted.FindAllStringSubmatch(m[2], -1)
		if len(names) == 0 {
			continue
		}
		consts[names[0][1]] = true
		switch m[1] {
		case "simpleIoctlInfo":
			for _, n := range names[1:] {
				opaque[n[1]] = true
			}
		case "ioctlInfoWithStructName":
			for _, n := range names[1:] {
				types[n[1]] = true
			}
		case "ioctlInfo":
			for _, g := range goType.FindAllStringSubmatch(m[2], -1) {
				types[g[1]] = true
			}
		}
	}
	for n := range types {
		delete(opaque, n) // mirrored somewhere: read in full
	}
	for _, set := range []struct {
		m   map[string]bool
		dst *[]string
	}{{types, &s.Types}, {opaque, &s.Opaque}, {consts, &s.Constants}} {
		for n := range set.m {
			*set.dst = append(*set.dst, n)
		}
		sort.Strings(*set.dst)
	}
	var vs []gvisorVersion
	def := regexp.MustCompile(`(?m)^\s*(?:v\d+_\d+_\d+ :=|_ =) add(?:Unsupported)?DriverABI\((\d+), (\d+), (\d+),(.*)$`)
	parentVar := regexp.MustCompile(`(v\d+)_(\d+)_(\d+)\)`)
	inner := regexp.MustCompile(`abi := (v\d+)_(\d+)_(\d+)\(\)`)
	locs := def.FindAllStringSubmatchIndex(src, -1)
	for i, l := range locs {
		m := func(k int) string { return src[l[2*k]:l[2*k+1]] }
		v := gvisorVersion{Version: nvVersion(m(1), m(2), m(3))}
		rest := m(4)
		if p := parentVar.FindStringSubmatch(rest); p != nil && !strings.Contains(rest, "func()") {
			v.Parent, v.Bare = nvVersion(p[1][1:], p[2], p[3]), true
		} else {
			end := len(src)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			if p := inner.FindStringSubmatch(src[l[1]:end]); p != nil {
				v.Parent = nvVersion(p[1][1:], p[2], p[3])
			}
		}
		vs = append(vs, v)
	}
	return s, vs
}

// nvVersion writes a driver version as NVIDIA tags it: 535.104.05.
func nvVersion(major, minor, patch string) string {
	p := strings.TrimLeft(patch, "0")
	if len(p) < 2 {
		p = strings.Repeat("0", 2-len(p)) + p
	}
	return major + "." + minor + "." + p
}

func gitShow(t *testing.T, repo, spec string) string {
	out, err := exec.Command("git", "-C", repo, "show", spec).Output()
	if err != nil {
		t.Skipf("git show %s in %s: %v", spec, repo, err)
	}
	return string(out)
}

// TestNvproxyAgainstGVisor builds nvproxy's whole surface, derived from
// gVisor's source, over every tag of NVIDIA's open-gpu-kernel-modules from
// 535 on, and compares the ranges with gVisor's hand-written version tree:
// a bare-parent version must share its parent's range; a version whose
// function changes the ABI should start a new range or lie in one that
// started at a tag gVisor skipped. It needs both repositories (bare git
// directories are fine): ABIFLOOR_NVIDIA_REPO and ABIFLOOR_GVISOR_REPO.
// ABIFLOOR_NVPROXY_TABLE, when set, is where the table is written.
func TestNvproxyAgainstGVisor(t *testing.T) {
	nv, gv := os.Getenv("ABIFLOOR_NVIDIA_REPO"), os.Getenv("ABIFLOOR_GVISOR_REPO")
	if nv == "" || gv == "" {
		t.Skip("set ABIFLOOR_NVIDIA_REPO and ABIFLOOR_GVISOR_REPO to NVIDIA's open-gpu-kernel-modules and gVisor's repositories")
	}
	needTools(t, "git", "cc")
	surface, tree := writeNvproxySurface(t, gv)
	ctx := context.Background()
	ins, err := GitTags(ctx, nv, `^(53[5-9]|5[4-9][0-9]|[6-9][0-9][0-9])\.`)
	if err != nil {
		t.Fatal(err)
	}
	var opt Options
	opt.Merge(surface)
	cacheDir := os.Getenv("ABIFLOOR_NVPROXY_CACHE")
	if cacheDir == "" {
		cacheDir = t.TempDir()
	}
	start := time.Now()
	b := &Builder{Options: opt, CacheDir: cacheDir}
	res := b.Build(ctx, ins)
	t.Logf("%d tags built in %v, %d compiles", len(ins), time.Since(start), b.compiles.Load())
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("version %s: %v", r.Version, r.Err)
		}
	}
	tab, err := NewTable(opt, res)
	if err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("ABIFLOOR_NVPROXY_TABLE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			tab.WriteJSON(f)
			f.Close()
		}
	}
	rangeOf := func(v string) int {
		a, err := tab.Lookup(v)
		if err != nil || !a.Observed {
			return -1
		}
		return a.Index
	}
	var rows []string
	agree, total := 0, 0
	for _, v := range tree {
		rv, rp := rangeOf(v.Version), rangeOf(v.Parent)
		if rv < 0 || v.Parent == "" || rp < 0 {
			continue
		}
		total++
		verdict := "agree"
		switch {
		case v.Bare && rv != rp:
			verdict = "DISAGREE: bare parent, but the headers changed: " + firstChanges(tab, rp, rv)
		case !v.Bare && rv == rp:
			verdict = "differ: gVisor changes the ABI, the surface's headers do not"
		default:
			agree++
		}
		kind := "function"
		if v.Bare {
			kind = "bare"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %d | %d | %s |", v.Version, v.Parent, kind, rp, rv, verdict))
	}
	sort.Slice(rows, func(i, j int) bool {
		return symver.Compare(strings.Fields(rows[i])[1], strings.Fields(rows[j])[1]) < 0
	})
	t.Logf("%d ranges over %d tags; gVisor's versions in the repository: %d, agreeing: %d\n| version | parent | gVisor | parent's range | range | verdict |\n|---|---|---|---|---|---|\n%s",
		len(tab.Ranges), len(ins), total, agree, strings.Join(rows, "\n"))
	if total == 0 {
		t.Error("no gVisor version is a tag of the NVIDIA repository")
	}
}

// writeNvproxySurface derives nvproxy's surface from gVisor's head and
// writes it to $ABIFLOOR_NVPROXY_SURFACE when set.
func writeNvproxySurface(t *testing.T, gv string) (*Surface, []gvisorVersion) {
	surface, tree := nvproxySurface(gitShow(t, gv, "HEAD:pkg/sentry/devices/nvproxy/version.go"))
	t.Logf("surface: %d types, %d opaque, %d constants; gVisor tree: %d versions", len(surface.Types), len(surface.Opaque), len(surface.Constants), len(tree))
	if p := os.Getenv("ABIFLOOR_NVPROXY_SURFACE"); p != "" {
		b, _ := json.MarshalIndent(surface, "", "  ")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return surface, tree
}

// TestNvproxySurface only writes the surface (bench/ranges-nvidia.sh):
// ABIFLOOR_GVISOR_REPO and ABIFLOOR_NVPROXY_SURFACE.
func TestNvproxySurface(t *testing.T) {
	gv := os.Getenv("ABIFLOOR_GVISOR_REPO")
	if gv == "" || os.Getenv("ABIFLOOR_NVPROXY_SURFACE") == "" {
		t.Skip("set ABIFLOOR_GVISOR_REPO and ABIFLOOR_NVPROXY_SURFACE")
	}
	needTools(t, "git")
	if s, _ := writeNvproxySurface(t, gv); len(s.Types) == 0 || len(s.Constants) == 0 {
		t.Error("no type or constant in gVisor's nvproxy")
	}
}

// firstChanges names a few changes on the way from range a to range b.
func firstChanges(t *table.Table, a, b int) string {
	var cs []string
	for i := a + 1; i <= b && i < len(t.Ranges); i++ {
		for _, c := range t.Ranges[i].Changes {
			cs = append(cs, c.String())
			if len(cs) == 3 {
				return strings.Join(cs, "; ") + " …"
			}
		}
	}
	return strings.Join(cs, "; ")
}

func TestNvVersion(t *testing.T) {
	for _, tt := range [][4]string{{"535", "104", "05", "535.104.05"}, {"570", "172", "8", "570.172.08"}, {"615", "15", "00", "615.15.00"}} {
		if got := nvVersion(tt[0], tt[1], tt[2]); got != tt[3] {
			t.Errorf("%v: %s", tt, got)
		}
	}
	_ = filepath.Join
}
