package abidiff_test

import (
	"context"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
)

// fetched returns the directory a .ci/fetch-NAME.sh script unpacks into
// ($env, else ~/.cache/abifloor/NAME), and skips the test unless it holds
// every one of files; what names the inputs in the skip message.
func fetched(t testing.TB, env, name, what string, files ...string) string {
	dir := os.Getenv(env)
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache/abifloor", name)
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Skipf("no %s in %s (set %s, or run .ci/fetch-%s.sh): %v", what, dir, env, name, err)
		}
	}
	return dir
}

// bullseye returns the directory .ci/fetch-bullseye.sh unpacked Debian
// bullseye's libc6 and libc6-dbg (glibc 2.31) into.
func bullseye(t testing.TB) string {
	return fetched(t, "ABIFLOOR_BULLSEYE", "bullseye", "bullseye glibc 2.31", "lib/x86_64-linux-gnu/libc.so.6")
}

const hostLibc = "/lib/x86_64-linux-gnu/libc.so.6"

// TestGlibc231to236 diffs glibc 2.31 (bullseye) with this machine's glibc
// and checks the removed and added symbols against the set difference of
// the two dynamic symbol tables, computed here with debug/elf alone.
func TestGlibc231to236(t *testing.T) {
	dir := bullseye(t)
	oldPath := filepath.Join(dir, "lib/x86_64-linux-gnu/libc.so.6")
	if _, err := os.Stat(hostLibc); err != nil {
		t.Skipf("%s: %v", hostLibc, err)
	}
	old, err := abiread.Load(context.Background(), oldPath, abiread.Options{DebugDirs: []string{filepath.Join(dir, "usr/lib/debug")}})
	if err != nil {
		t.Fatal(err)
	}
	new, err := abiread.Load(context.Background(), hostLibc, abiread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := compare(t, old, new, nil)

	oldSet, newSet := dynsyms(t, oldPath), dynsyms(t, hostLibc)
	wantRemoved, wantAdded := minus(oldSet, newSet), minus(newSet, oldSet)
	if got := ids(r.Symbols.Removed()); !slices.Equal(got, wantRemoved) {
		t.Errorf("removed = %v\nwant %v", got, wantRemoved)
	}
	if got := ids(r.Symbols.Added()); !slices.Equal(got, wantAdded) {
		t.Errorf("added: %d symbols, want %d", len(got), len(wantAdded))
	}
	for _, want := range []string{"malloc_get_state@GLIBC_2.2.5", "malloc_set_state@GLIBC_2.2.5"} {
		if !slices.Contains(r.Symbols.Removed(), want) {
			t.Errorf("%s not reported removed", want)
		}
	}
	// Version nodes are a list of their own, never symbols (issue #12,
	// item 3): GLIBC_2.34@@GLIBC_2.34 is not an added symbol.
	var versions []string
	for _, c := range r.Symbols.Changes {
		switch c.Kind {
		case abidiff.VersionAdded:
			versions = append(versions, c.Version)
		case abidiff.SymbolAdded, abidiff.SymbolRemoved:
			if name, ver, _ := strings.Cut(strings.Replace(c.Symbol, "@@", "@", 1), "@"); name == ver {
				t.Errorf("version node %s reported as a symbol", c.Symbol)
			}
		}
	}
	wantVersions := []string{"GLIBC_2.32", "GLIBC_2.33", "GLIBC_2.34", "GLIBC_2.35", "GLIBC_2.36", "GLIBC_ABI_DT_RELR"}
	for _, v := range wantVersions {
		if !slices.Contains(versions, v) {
			t.Errorf("version %s not reported added (got %q)", v, versions)
		}
	}
	if !slices.Contains(r.Symbols.Changed(), "version GLIBC_2.34 added") {
		t.Error("the version node GLIBC_2.34 not reported added")
	}
	if !slices.Contains(r.Symbols.Added(), "_Fork@@GLIBC_2.34") {
		t.Error("_Fork@@GLIBC_2.34 not reported added")
	}
	if !slices.Contains(r.Symbols.Changed(), "__libc_start_main@@GLIBC_2.2.5 -> __libc_start_main@@GLIBC_2.34") {
		t.Error("the default version of __libc_start_main did not move")
	}
	if len(r.Private.Removed()) == 0 || r.Compatible {
		t.Errorf("private removed %d, compatible %v", len(r.Private.Removed()), r.Compatible)
	}
	if old.DebugInfo != abi.DebugDWARF || new.DebugInfo != abi.DebugDWARF {
		t.Logf("debug info: old %s, new %s (types not compared)", old.DebugInfo, new.DebugInfo)
		return
	}
	checkGlibcTypes(t, r)
}

// checkGlibcTypes: the two false alarms of issue #12 are gone, the real
// breaks stay.
func checkGlibcTypes(t *testing.T, r abidiff.Report) {
	t.Helper()
	for _, c := range r.Symbols.Changed() {
		if strings.HasPrefix(c, "memcpy@") {
			t.Errorf("memcpy (assembly, no type information) reported changed: %s", c)
		}
	}
	if !slices.Contains(r.Untyped, "memcpy@GLIBC_2.2.5") {
		t.Errorf("memcpy@GLIBC_2.2.5 not listed as having no type information: %q", r.Untyped)
	}
	types := map[string]abidiff.TypeChange{}
	for _, tc := range append(slices.Clone(r.Types), r.PrivateTypes...) {
		types[tc.Name] = tc
	}
	cond, ok := types["struct __pthread_cond_s"]
	if !ok {
		t.Error("struct __pthread_cond_s: no change reported (its anonymous unions became __atomic_wide_counter)")
	} else if cond.Incompatible() {
		t.Errorf("struct __pthread_cond_s incompatible: %v", cond.Changes)
	} else {
		for _, c := range cond.Changes {
			if c.Note != "names only, same layout" {
				t.Errorf("struct __pthread_cond_s: %s: note %q", c, c.Note)
			}
		}
	}
	for _, name := range []string{"struct __locale_data", "struct link_map"} {
		if tc, ok := types[name]; !ok || !tc.Incompatible() {
			t.Errorf("%s: reported %v, incompatible %v", name, ok, ok && tc.Incompatible())
		}
	}
}

// dynsyms is the set of exported name@VERSION of a library, public nodes
// only: defined, not local, not hidden.
func dynsyms(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, s := range syms {
		vis := elf.ST_VISIBILITY(s.Other)
		if s.Section == elf.SHN_UNDEF || elf.ST_BIND(s.Info) == elf.STB_LOCAL || vis == elf.STV_HIDDEN || vis == elf.STV_INTERNAL {
			continue
		}
		if strings.HasSuffix(s.Version, "PRIVATE") || s.Section == elf.SHN_ABS && s.Name == s.Version {
			// Private, or a version node (listed apart, not a symbol).
			continue
		}
		id := s.Name
		if s.Version != "" {
			id += "@" + s.Version
		}
		set[id] = true
	}
	return set
}

func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ids turns name@@V into name@V, the identity the sets use.
func ids(syms []string) []string {
	out := make([]string, len(syms))
	for i, s := range syms {
		out[i] = strings.Replace(s, "@@", "@", 1)
	}
	slices.Sort(out)
	return out
}
