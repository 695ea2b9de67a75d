package bind

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/elfx"
)

// mapIndexed is o looked up the other way: through a map of every
// definition, as libraries without a usable DT_GNU_HASH are.
func mapIndexed(t testing.TB, p string) *object {
	t.Helper()
	f, err := elfx.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.SymTab()
	if err != nil {
		t.Fatal(err)
	}
	o, err := openObject(p)
	if err != nil {
		t.Fatal(err)
	}
	m := *o
	m.gnu = nil
	m.indexDefs(syms)
	return &m
}

// agreeLookups holds the library's own hash table to the map of its
// definitions: every name it defines, with its version, with none, with
// another, and names it lacks, give the same answer both ways.
func agreeLookups(t *testing.T, p string) (hashed bool) {
	t.Helper()
	o, err := openObject(p)
	if err != nil || o.Kind != elfx.SharedLibrary {
		return false
	}
	if o.gnu == nil {
		return false
	}
	m := mapIndexed(t, p)
	f, err := elfx.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	f.Close()
	asked := 0
	ask := func(name, version string) {
		asked++
		if g, w := o.provides(name, version), m.provides(name, version); g != w {
			t.Errorf("%s: %s@%s: the hash table says %v, the map %v", p, name, version, g, w)
		}
	}
	for _, s := range syms {
		if s.Name == "" {
			continue
		}
		ask(s.Name, s.Version)
		ask(s.Name, "")
		ask(s.Name, "NO_SUCH_VERSION_1.0")
		ask(s.Name+"_absent", "")
	}
	return asked > 0
}

// TestGNUHashLookupAgrees: lookups through a library's DT_GNU_HASH answer
// as the map of all its definitions did, on libraries built here with
// versions (default, non-default, base, unversioned) and on every shared
// library of the system.
func TestGNUHashLookupAgrees(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	src := write(t, dir, "v.c", `int f1(void){return 1;}
int f2(void){return 2;}
int g(void){return 3;}
__asm__(".symver old_h,h@VER_1");
int old_h(void){return 4;}
__asm__(".symver new_h,h@@VER_2");
int new_h(void){return 5;}
int data = 6;
`)
	vmap := write(t, dir, "v.map", "VER_1 { global: f1; local: *; };\nVER_2 { global: f2; data; } VER_1;\n")
	versioned := filepath.Join(dir, "libv.so")
	cc(t, gcc, "-shared", "-fPIC", "-o", versioned, src, "-Wl,--version-script="+vmap, "-Wl,--hash-style=gnu")
	plain := filepath.Join(dir, "libp.so")
	cc(t, gcc, "-shared", "-fPIC", "-o", plain, write(t, dir, "p.c", "int f1(void){return 1;}\nint data = 6;\n"), "-Wl,--hash-style=both")
	for _, p := range []string{versioned, plain} {
		if !agreeLookups(t, p) {
			t.Fatalf("%s: not looked up through its DT_GNU_HASH", p)
		}
	}
	if testing.Short() {
		return
	}
	sys := "/usr/lib/" + elfx.Multiarch(hostMachine())
	paths, _ := filepath.Glob(filepath.Join(sys, "*.so*"))
	n := 0
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && agreeLookups(t, p) {
			n++
		}
	}
	t.Logf("%d libraries under %s looked up through their DT_GNU_HASH agree", n, sys)
}
