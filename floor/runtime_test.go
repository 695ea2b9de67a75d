package floor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/symver"
)

func TestRuntimeClaimResolve(t *testing.T) {
	for _, c := range []struct{ control, want string }{
		{"Depends: libc6 (>= 2.34), libstdc++6 (>= 12)\n", "GLIBCXX=3.4.30 CXXABI=1.3.13"},
		{"Depends: libstdc++6 (>= 4.1.1)\n", "GLIBCXX=3.4.8 CXXABI=1.3.1"},
		{"Depends: libstdc++6 (>= 5.2)\n", "GLIBCXX=3.4.21 CXXABI=1.3.9"},
		{"Depends: libstdc++6 (>= 13.1), libstdc++6 (>= 9)\n", "GLIBCXX=3.4.31 CXXABI=1.3.14"},
		{"Depends: libgcc-s1 (>= 3.0)\n", "GCC=3.0"},
		{"Pre-Depends: libgcc1 (>= 1:4.2)\n", "GCC=4.2"},
		{"Depends: libgcc-s1 (>= 3.0) | libgcc1 (>= 1:2.95)\n", "GCC=2.95"},
		{"Depends: libstdc++6\n", "GLIBCXX= CXXABI="},
		{"Depends: libstdc++6 (>= 12) | libfoo\n", ""},
		{"Depends: libstdc++6 (>= 2.95)\n", ""},
		{"libstdc++.so.6(GLIBCXX_3.4.21)(64bit)\nlibstdc++.so.6(GLIBCXX_3.4.29)(64bit)\nlibgcc_s.so.1(GCC_3.0)(64bit)\nlibstdc++.so.6(CXXABI_1.3)(64bit)\n", "GLIBCXX=3.4.29 GCC=3.0 CXXABI=1.3"},
	} {
		var got []string
		for _, r := range runtimeClaims(c.control) {
			if r.source == "" {
				t.Errorf("%q: claim without a source", c.control)
			}
			got = append(got, r.ns+"="+r.version)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%q: %q, want %q", c.control, g, c.want)
		}
	}
}

// TestRuntimeClaims builds a C++ program (GLIBCXX_3.4.29 with GCC 12's
// headers, GCC_3.0 for unwinding) into real .debs and .rpms: a package
// that claims less of the GCC runtimes than its files need breaks its
// claim, as for libc6.
func TestRuntimeClaims(t *testing.T) {
	cxx := fixture.Compiler(t, "g++")
	dir := t.TempDir()
	app := fixture.Build(t, cxx, dir, "app.cc", `#include <string>
#include <iostream>
#include <stdexcept>
int main(int argc, char **) {
	std::string s = "x";
	s.reserve();
	try { if (argc > 5) throw std::runtime_error("x"); } catch (std::exception &e) { std::cout << e.what(); }
	std::cout << s << "\n";
}
`, "app")
	bin, _ := os.ReadFile(app)
	res := Scan(t.Context(), []string{app}, Options{})
	if len(res.Files) != 1 || res.Files[0].Floors["GLIBCXX"] == "" || res.Files[0].Floors["GCC"] == "" {
		t.Skipf("this g++ makes no program that needs GLIBCXX and GCC versions: %+v", res.Files)
	}
	need := res.Files[0].Floors

	t.Run("deb", func(t *testing.T) {
		fixture.Need(t, "dpkg-deb")
		for _, c := range []struct {
			dep  string
			want string // the namespace of the broken claim, "" when it holds
		}{
			{"libstdc++6 (>= 12), libgcc-s1 (>= 3.0)", ""},
			{"libstdc++6 (>= 9), libgcc-s1 (>= 3.0)", "GLIBCXX"},
			{"libstdc++6 (>= 12), libgcc1 (>= 1:2.95)", "GCC"},
		} {
			pkg := t.TempDir()
			os.MkdirAll(filepath.Join(pkg, "DEBIAN"), 0o755)
			os.MkdirAll(filepath.Join(pkg, "usr/bin"), 0o755)
			os.WriteFile(filepath.Join(pkg, "usr/bin/app"), bin, 0o755)
			os.WriteFile(filepath.Join(pkg, "DEBIAN/control"), []byte("Package: p\nVersion: 1\nArchitecture: amd64\nMaintainer: x <x@example.org>\nDepends: libc6 (>= 2.34), "+c.dep+"\nDescription: x\n"), 0o644)
			art := filepath.Join(t.TempDir(), "p.deb")
			run(t, pkg, "dpkg-deb", "--root-owner-group", "--build", pkg, art)
			checkRuntimeClaim(t, art, c.dep, c.want, need)
		}
	})

	t.Run("rpm", func(t *testing.T) {
		fixture.Need(t, "rpmbuild")
		for _, c := range []struct {
			name, requires, want string
		}{
			{"generated", "", ""},
			{"by hand", "AutoReq: no\nRequires: libc.so.6(GLIBC_2.34)(64bit)\nRequires: libstdc++.so.6(GLIBCXX_3.4.21)(64bit)\n", "GLIBCXX"},
		} {
			top := t.TempDir()
			spec := filepath.Join(top, "app.spec")
			os.WriteFile(spec, []byte("%global debug_package %{nil}\n%global __os_install_post %{nil}\nName: app\nVersion: 1.0\nRelease: 1\nSummary: t\nLicense: MIT\n"+c.requires+
				"%description\nt\n%install\nmkdir -p %{buildroot}/usr/bin\ncp %{_sourcedir}/app %{buildroot}/usr/bin/\n%files\n/usr/bin/app\n"), 0o644)
			run(t, top, "rpmbuild", "-bb", "--nodeps", "--define", "_topdir "+top, "--define", "_sourcedir "+dir, spec)
			rpms, _ := filepath.Glob(filepath.Join(top, "RPMS/*/app-1.0-1.*.rpm"))
			if len(rpms) != 1 {
				t.Fatalf("built %v", rpms)
			}
			checkRuntimeClaim(t, rpms[0], c.name, c.want, need)
		}
	})
}

func checkRuntimeClaim(t *testing.T, art, claim, want string, need map[string]string) {
	t.Helper()
	vs := claimed(t, art)
	var got []string
	for _, v := range vs {
		got = append(got, v.Namespace)
		if v.Namespace != "" && v.Required != need[v.Namespace] {
			t.Errorf("%s: %s required %s, the file needs %s", claim, v.Namespace, v.Required, need[v.Namespace])
		}
		if v.Namespace == "GLIBCXX" && len(v.Symbols) == 0 {
			t.Errorf("%s: the broken claim names no symbol: %+v", claim, v)
		}
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("%s: broken claims %q (%+v), want %q", claim, g, vs, want)
	}
}

// FuzzRuntimeClaims: any control text or rpm Requires parses without
// panicking, and every claim has a namespace, a source and a valid
// version or none.
func FuzzRuntimeClaims(f *testing.F) {
	for _, s := range []string{
		"Depends: libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1 (>= 3.0)\n",
		"Pre-Depends: libgcc1 (>= 1:4.2) | libgcc-s1 (>> 10-20200411)\n",
		"Depends: libstdc++6 (>= 4.1.1) | libstdc++6:amd64 (= 13.2.0-7)\n",
		"libstdc++.so.6(GLIBCXX_3.4.21)(64bit)\nlibgcc_s.so.1(GCC_3.0)\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, control string) {
		for _, c := range runtimeClaims(control) {
			if c.source == "" || c.ns == "" || (c.version != "" && !symver.Valid(c.version)) {
				t.Fatalf("%q: claim %+v", control, c)
			}
		}
	})
}
