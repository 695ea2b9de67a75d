package bind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
)

// cycleRoot writes n programs under root/usr/lib, each needing the next
// and the last the first: one DT_NEEDED cycle through all of them, each
// with the given RPATH.
func cycleRoot(t testing.TB, n int, rpath func(i int) string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "usr", "lib")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	withLoader(t, root)
	for i := range n {
		b := elfgen.Needing([]string{fmt.Sprintf("lib%d.so", (i+1)%n)}, rpath(i), "")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("lib%d.so", i)), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCycleSearchesOnce (issue 28, item 13): 1,000 libraries in one
// DT_NEEDED cycle, audited together, once made every file's load search
// for all 1,000 again, and walk its loader chain for each (with RPATH
// $ORIGIN, minutes). Each search is now made once per run: the searches
// grow with the libraries, not with libraries × files, and every file
// still loads all of them.
func TestCycleSearchesOnce(t *testing.T) {
	const n = 300
	for _, c := range []struct {
		name  string
		rpath func(int) string
	}{
		{"no RPATH", func(int) string { return "" }},
		{"RPATH $ORIGIN", func(int) string { return "$ORIGIN" }},
		// Every chain of loaders names other directories; none exists.
		{"RPATH per library", func(i int) string { return fmt.Sprintf("/nonexistent/%d:$ORIGIN/d%d", i, i) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := cycleRoot(t, n, c.rpath)
			a := New(Options{Sysroot: root})
			res := a.Audit(context.Background(), []string{filepath.Join(root, "usr", "lib")})
			if len(res.Files) != n {
				t.Fatalf("%d reports, want %d", len(res.Files), n)
			}
			for _, f := range res.Files {
				if f.Error != nil || f.DiesAtStart || len(f.Libraries) != n-1 || len(f.MissingLibraries) != 0 {
					t.Fatalf("%s: error %v, dies %v (%s), %d libraries (want %d), missing %v", f.Path, f.Error, f.DiesAtStart, f.Reason, len(f.Libraries), n-1, f.MissingLibraries)
				}
				// The loader's breadth-first order: the next, then the one
				// after, around the cycle.
				var i int
				fmt.Sscanf(filepath.Base(f.Path), "lib%d.so", &i)
				if want := fmt.Sprintf("/usr/lib/lib%d.so", (i+1)%n); f.Libraries[0] != want {
					t.Fatalf("%s: first library %s, want %s", f.Path, f.Libraries[0], want)
				}
			}
			// One search per library per distinct search path; with
			// RPATH $ORIGIN the library's own directory makes a second.
			if s := a.searches.Load(); s > 3*n {
				t.Errorf("%d searches for %d libraries in a cycle, over %d: the search is not shared", s, n, 3*n)
			}
			// The libraries, and the interpreter they name, once each.
			if p := a.Parsed(); p != n+1 {
				t.Errorf("%d objects parsed, want %d", p, n+1)
			}
		})
	}
}

// TestSearchSharedKeepsChain: a search is shared only between loads that
// search the same directories. Two programs need libx.so, one through an
// RPATH that finds a copy beside it; the libraries they load then need
// liby.so, which only the first program's RPATH chain finds.
func TestSearchSharedKeepsChain(t *testing.T) {
	root := t.TempDir()
	write := func(p string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	withLoader(t, root)
	write("usr/lib/libx.so", elfgen.Needing([]string{"liby.so"}, "", ""))
	write("opt/a/lib/liby.so", elfgen.Needing(nil, "", ""))
	write("opt/a/app", elfgen.Needing([]string{"libx.so"}, "$ORIGIN/lib", ""))
	write("opt/b/app", elfgen.Needing([]string{"libx.so"}, "$ORIGIN/lib", ""))
	res := New(Options{Sysroot: root}).Audit(context.Background(), []string{filepath.Join(root, "opt/a/app"), filepath.Join(root, "opt/b/app")})
	if len(res.Files) != 2 {
		t.Fatalf("%d reports", len(res.Files))
	}
	if a := res.Files[0]; a.DiesAtStart || strings.Join(a.Libraries, " ") != "/usr/lib/libx.so /opt/a/lib/liby.so" {
		t.Errorf("a: dies %v, libraries %v", a.DiesAtStart, a.Libraries)
	}
	if b := res.Files[1]; !b.DiesAtStart || strings.Join(b.MissingLibraries, " ") != "liby.so" {
		t.Errorf("b: dies %v, missing %v", b.DiesAtStart, b.MissingLibraries)
	}
}

// residueCycle builds, with gcc, n shared libraries in one DT_NEEDED
// cycle under root/usr/lib, each calling missing_sym, which none defines:
// a reference every library's own load leaves unresolved. One library is
// linked; the others are copies with their names rewritten in place.
func residueCycle(t *testing.T, n int) string {
	t.Helper()
	gcc := needCC(t)
	dir := t.TempDir()
	obj := filepath.Join(dir, "x.o")
	cc(t, gcc, "-fPIC", "-c", "-o", obj, write(t, dir, "x.c", "void missing_sym(void);\nvoid f(void){ missing_sym(); }\n"))
	stub := filepath.Join(dir, "libY000.so")
	cc(t, gcc, "-shared", "-o", stub, obj, "-Wl,-soname,libY000.so")
	one := filepath.Join(dir, "libX000.so")
	cc(t, gcc, "-shared", "-o", one, obj, "-Wl,-soname,libX000.so", "-Wl,--unresolved-symbols=ignore-all", "-Wl,--no-as-needed", stub)
	b, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	lib := filepath.Join(root, "usr", "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c := strings.ReplaceAll(string(b), "libX000.so", fmt.Sprintf("libX%03d.so", i))
		c = strings.ReplaceAll(c, "libY000.so", fmt.Sprintf("libX%03d.so", (i+1)%n))
		if err := os.WriteFile(filepath.Join(lib, fmt.Sprintf("libX%03d.so", i)), []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCycleResidueIndexed: in a cycle of libraries that each leave a
// reference unresolved, every binary's scope holds the whole cycle, and
// looking each library's unresolved reference up object by object cost
// libraries² per binary. Past the cost of indexing the scope's
// definitions, lookups go through the index, with the same answers.
func TestCycleResidueIndexed(t *testing.T) {
	const n = 200
	root := residueCycle(t, n)
	a := New(Options{Sysroot: root})
	res := a.Audit(context.Background(), []string{filepath.Join(root, "usr", "lib")})
	if len(res.Files) != n {
		t.Fatalf("%d reports", len(res.Files))
	}
	for _, f := range res.Files {
		if f.Error != nil || len(f.Unresolved) != n || len(f.Libraries) < n-1 {
			t.Fatalf("%s: error %v, %d unresolved (want %d), %d libraries", f.Path, f.Error, len(f.Unresolved), n, len(f.Libraries))
		}
	}
	// One scope, asked for every library's reference: the probes stop
	// growing with the scope once it is indexed.
	p := filepath.Join(root, "usr", "lib", "libX000.so")
	o, err := a.target(p, nil, make([]byte, headSize))
	if err != nil {
		t.Fatal(err)
	}
	sc := a.loadOrder(context.Background(), &loaded{obj: o, name: p, origin: a.origin(p)})
	plain := &scope{list: sc.list, byDef: nil}
	plain.probes = -1 << 40 // never indexed
	for _, l := range sc.list {
		for _, r := range l.obj.refs {
			for _, v := range []string{r.Version, "", "NOPE_1"} {
				if g, w := sc.providesExcept(r.Name, v, l.obj), plain.providesExcept(r.Name, v, l.obj); g != w {
					t.Fatalf("%s@%s: indexed %v, one by one %v", r.Name, v, g, w)
				}
			}
		}
	}
	if sc.byDef == nil {
		t.Fatalf("a scope of %d objects asked %d times is not indexed", len(sc.list), 3*len(sc.list))
	}
	if limit := 16*sc.cost + 1024 + len(sc.list); sc.probes > limit {
		t.Errorf("%d objects probed one by one, over %d", sc.probes, limit)
	}
}

// withLoader puts the interpreter elfgen's programs name into root, so
// that they start there (the loader's own search is what these tests
// hold; an absent interpreter would end each load first).
func withLoader(t testing.TB, root string) {
	t.Helper()
	p := filepath.Join(root, "lib64", "ld-linux-x86-64.so.2")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, elfgen.Needing(nil, "", ""), 0o755); err != nil {
		t.Fatal(err)
	}
}
