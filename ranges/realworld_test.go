package ranges

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/ranges/table"
)

// goModule returns the directory of a Go module version, downloaded with
// go mod download into a module cache kept under the user's abifloor cache
// (so a second run needs no network). It skips the test, with the reason,
// when the module cannot be had.
func goModule(t *testing.T, path, version string) string {
	t.Helper()
	needTools(t, "go")
	base, err := cache.DefaultDir(os.Getenv)
	if err != nil {
		t.Skipf("no cache directory for downloads: %v", err)
	}
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOMODCACHE="+filepath.Join(base, "testdata", "gomod"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); err != nil || jerr != nil || m.Dir == "" {
		t.Skipf("cannot download %s@%s (offline?): %v %s", path, version, err, m.Error)
	}
	return m.Dir
}

func buildModules(t *testing.T, path string, versions []string, opt Options) *table.Table {
	t.Helper()
	needTools(t, "cc")
	var ins []Input
	for _, v := range versions {
		ins = append(ins, Input{Version: v, Dir: goModule(t, path, v)})
	}
	res := (&Builder{Options: opt, CacheDir: t.TempDir()}).Build(context.Background(), ins)
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s@%s: %v", path, r.Version, r.Err)
		}
	}
	tab, err := NewTable(opt, res)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// changedTypes lists the types a range's changes name.
func changedTypes(r table.Range) []string {
	var ts []string
	for _, c := range r.Changes {
		if !slices.Contains(ts, c.Type) {
			ts = append(ts, c.Type)
		}
	}
	return ts
}

// TestSQLiteHistory follows SQLite's virtual table and VFS structs through
// the sqlite3-binding.h that github.com/mattn/go-sqlite3 vendors: 3.24 and
// 3.25 are one ABI, xShadowName arrives in 3.26 (go-sqlite3 v1.14.0 has
// 3.32), xIntegrity in 3.44 (v1.14.22 has 3.45).
func TestSQLiteHistory(t *testing.T) {
	versions := []string{"v1.9.0", "v1.10.0", "v1.14.0", "v1.14.16", "v1.14.22", "v1.14.46", "v1.14.49", "v1.14.53"}
	tab := buildModules(t, "github.com/mattn/go-sqlite3", versions, Options{
		Headers: []string{"sqlite3-binding.h"},
		Types:   []string{"sqlite3_module", "sqlite3_vfs", "sqlite3_io_methods", "sqlite3_index_info"},
	})
	want := []string{"v1.9.0,v1.10.0", "v1.14.0,v1.14.16", "v1.14.22,v1.14.46,v1.14.49,v1.14.53"}
	if got := summary(tab); !slices.Equal(got, want) {
		t.Fatalf("ranges %q, want %q", got, want)
	}
	has := func(r int, typ, path string, compatible bool) {
		t.Helper()
		for _, c := range tab.Ranges[r].Changes {
			if c.Type == typ && c.Path == path && c.Compatible == compatible {
				return
			}
		}
		t.Errorf("range %d: no change %s %s (compatible %v) in %+v", r, typ, path, compatible, tab.Ranges[r].Changes)
	}
	has(1, "struct sqlite3_module", "xShadowName", true)
	has(1, "struct sqlite3_module", "size", false)
	has(2, "struct sqlite3_module", "xIntegrity", true)
	// sqlite3_filename is a typedef of const char *: a name, not a layout.
	has(2, "struct sqlite3_vfs", "xOpen.type", true)
	for _, v := range []string{"v1.9.5", "v1.14.30"} {
		if a, _ := tab.Lookup(v); !a.Covered || a.Observed {
			t.Errorf("%s: %+v, want covered and inferred", v, a)
		}
	}
	if a, _ := tab.Lookup("v1.12.0"); a.Covered || before(a) != 0 || after(a) != 1 {
		t.Errorf("v1.12.0: %+v, want the gap between ranges 0 and 1", a)
	}
}

// TestNVMLHistory follows NVML structs through the nvml.h that
// github.com/NVIDIA/go-nvml vendors from NVIDIA's driver SDK: the process
// info struct was renamed to its _v2 form with the same layout.
func TestNVMLHistory(t *testing.T) {
	versions := []string{"v0.11.6-0", "v0.12.0-1", "v0.12.0-3", "v0.12.4-0", "v0.12.4-1", "v0.13.0-1", "v0.13.4-1"}
	tab := buildModules(t, "github.com/NVIDIA/go-nvml", versions, Options{
		Includes: []string{"pkg/nvml"},
		Headers:  []string{"nvml.h"},
		Types:    []string{"nvmlPciInfo_t", "nvmlProcessInfo_t", "nvmlMemory_t", "nvmlDeviceAttributes_t", "nvmlBAR1Memory_t", "nvmlUtilization_t"},
	})
	want := []string{"v0.11.6-0,v0.12.0-1,v0.12.0-3", "v0.12.4-0,v0.12.4-1,v0.13.0-1,v0.13.4-1"}
	if got := summary(tab); !slices.Equal(got, want) {
		t.Fatalf("ranges %q, want %q", got, want)
	}
	if got := changedTypes(tab.Ranges[1]); !slices.Equal(got, []string{"nvmlProcessInfo_t"}) {
		t.Errorf("range 1 changes types %v: %+v", got, tab.Ranges[1].Changes)
	}
	for _, c := range tab.Ranges[1].Changes {
		if !c.Compatible {
			t.Errorf("a rename with the same layout is incompatible: %+v", c)
		}
	}
}
