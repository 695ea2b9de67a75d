package symver

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, ns, ver string
		ok            bool
	}{
		{"GLIBC_2.2.5", "GLIBC", "2.2.5", true},
		{"GLIBCXX_3.4.30", "GLIBCXX", "3.4.30", true},
		{"CXXABI_1.3.13", "CXXABI", "1.3.13", true},
		{"GCC_12.0.0", "GCC", "12.0.0", true},
		{"OPENSSL_3.0.0", "OPENSSL", "3.0.0", true},
		{"OPENSSL_1_1_1a", "OPENSSL", "1_1_1a", true},
		{"LIBFFI_BASE_7.0", "LIBFFI_BASE", "7.0", true},
		{"CXXABI_TM_1", "CXXABI_TM", "1", true},
		{"Qt_5", "Qt", "5", true},
		{"GLIBC_PRIVATE", "", "", false},
		{"GLIBC_ABI_DT_RELR", "", "", false},
		{"CXXABI_FLOAT128", "", "", false},
		{"_2.0", "", "", false},
		{"", "", "", false},
		{"GLIBC_", "", "", false},
	} {
		ns, ver, ok := Split(tc.name)
		if ns != tc.ns || ver != tc.ver || ok != tc.ok {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tc.name, ns, ver, ok, tc.ns, tc.ver, tc.ok)
		}
	}
}

func TestIsPrivate(t *testing.T) {
	for name, want := range map[string]bool{
		"GLIBC_PRIVATE": true, "PRIVATE": true, "LIBFOO_PRIVATE": true,
		"GLIBC_2.2.5": false, "PRIVATE_1.0": false, "GLIBCPRIVATE": false, "": false,
	} {
		if got := IsPrivate(name); got != want {
			t.Errorf("IsPrivate(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2.2.5", "2.10", -1},
		{"2.2.5", "2.2.5", 0},
		{"2.2", "2.2.0", 0},
		{"2.3.4", "2.3", 1},
		{"3.4.9", "3.4.30", -1},
		{"2.17", "2.4", 1},
		{"535.104.05", "535.113.01", -1},
		{"535.104.5", "535.104.05", 0},
		{"550.54.14", "535.288.01", 1},
		{"1_1_0", "1_1_1a", -1},
		{"1.1.1", "1.1.1a", -1},
		{"1.1.1a", "1.1.1b", -1},
		{"12.0.0", "7.0.0", 1},
		{"99999999999999999999", "1", 1},
		{"99999999999999999999", "100000000000000000000", -1},
		{"", "0", 0},
		{"v1.2.3", "1.2.3", 0},
		{"v1.2.3", "v1.10.0", -1},
		{"V2", "1", 1},
		{"1.0.0-rc1", "1.0.0", -1},
		{"1.0.0-rc1", "1.0.0-rc2", -1},
		{"1.0.0-rc.2", "1.0.0-rc.10", -1},
		{"1.0.0-1", "1.0.0-rc", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"v0.11.6-0", "v0.11.6-1", -1},
		{"v0.12.0-1", "v0.12.1-0", -1},
		{"1.0.0+build5", "1.0.0", 0},
		{"3.45.1", "3.45.0", 1},
		{"1.20.30", "1.3.40", 1},
	} {
		if got := Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Compare(tc.b, tc.a); got != -tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

func TestValid(t *testing.T) {
	for v, want := range map[string]bool{
		"535.104.05": true, "550.54.14": true, "2.2.5": true, "1.20.30": true,
		"v1.2.3": true, "3.45.1": true, "1.0.0-rc1": true, "1_1_1a": true,
		"v0.11.6-0": true, "1.0+meta": true, "7": true,
		"": false, "v": false, "abc": false, "1..2": false, "1.": false,
		".1": false, "1.x": false, "1.0-": false, "1.0-rc..1": false,
		"1.0 ": false, "1/2": false, "-1": false,
	} {
		if got := Valid(v); got != want {
			t.Errorf("Valid(%q) = %v, want %v (%v)", v, got, want, Check(v))
		}
	}
}

func TestSort(t *testing.T) {
	vs := []string{"535.113.01", "v1.0.0", "1.0.0-rc1", "2.10", "2.2.5", "535.104.05", "2.2"}
	Sort(vs)
	want := []string{"1.0.0-rc1", "v1.0.0", "2.2", "2.2.5", "2.10", "535.104.05", "535.113.01"}
	if !slices.Equal(vs, want) {
		t.Errorf("Sort = %q, want %q", vs, want)
	}
}

func BenchmarkCompare(b *testing.B) {
	for b.Loop() {
		Compare("535.104.05", "535.113.01")
		Compare("2.2.5", "2.10")
	}
}

func FuzzCompare(f *testing.F) {
	for _, s := range []string{"2.2.5", "v1.0.0-rc.1+x", "1_1_1a", "535.104.05", ""} {
		f.Add(s, "2.10", "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		ab, ba := Compare(a, b), Compare(b, a)
		if ref := compareRef(a, b); ab != ref {
			t.Fatalf("Compare(%q,%q)=%d, the reference says %d", a, b, ab, ref)
		}
		if ab != -ba {
			t.Fatalf("Compare(%q,%q)=%d but reverse %d", a, b, ab, ba)
		}
		if Compare(a, a) != 0 {
			t.Fatalf("Compare(%q,%q) != 0", a, a)
		}
		if ab <= 0 && Compare(b, c) <= 0 && Compare(a, c) > 0 {
			t.Fatalf("not transitive: %q <= %q <= %q but %q > %q", a, b, c, a, c)
		}
		_ = Valid(a)
	})
}

// compareRef is the plain statement of the order, component by component
// on split strings; FuzzCompare checks the allocation-free Compare against
// it.
func compareRef(a, b string) int {
	am, ap, _ := parts(a)
	bm, bp, _ := parts(b)
	dots := strings.NewReplacer("_", ".")
	as, bs := strings.Split(dots.Replace(am), "."), strings.Split(dots.Replace(bm), ".")
	for k := 0; k < len(as) || k < len(bs); k++ {
		var x, y string
		if k < len(as) {
			x = as[k]
		}
		if k < len(bs) {
			y = bs[k]
		}
		xn, xs := splitNum(x)
		yn, ys := splitNum(y)
		if c := compareNum(xn, yn); c != 0 {
			return c
		}
		if c := strings.Compare(xs, ys); c != 0 {
			return c
		}
	}
	return comparePre(ap, bp)
}
