package floor

import "testing"

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
		{"1_1_0", "1_1_1a", -1},
		{"1.1.1", "1.1.1a", -1},
		{"1.1.1a", "1.1.1b", -1},
		{"12.0.0", "7.0.0", 1},
		{"99999999999999999999", "1", 1},
		{"", "0", 0},
	} {
		if got := Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Compare(tc.b, tc.a); got != -tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}
