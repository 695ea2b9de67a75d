package cause

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	rs, err := parse(table)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 10 {
		t.Fatalf("%d rows", len(rs))
	}
	for _, tc := range []struct {
		ref, class string
		fix        string // a part of the fix
	}{
		{"__isoc23_strtol@GLIBC_2.38", "c23-headers", "-std=c17"},
		{"__isoc23_sscanf@GLIBC_2.38", "c23-headers", "abifloor cc --target debian-11"},
		{"fcntl64@GLIBC_2.28", "lfs-headers", "-D_FILE_OFFSET_BITS=64"},
		{"lseek64@GLIBC_2.28", "lfs-headers", "-D_FILE_OFFSET_BITS=64"},
		{"stat@GLIBC_2.33", "stat-headers", "abifloor cc --target debian-11"},
		{"fstat64@GLIBC_2.33", "stat-headers", "abifloor cc"},
		{"pthread_create@GLIBC_2.34", "libc-merge", "libpthread"},
		{"dlopen@GLIBC_2.34", "libc-merge", "libdl"},
		{"__res_search@GLIBC_2.34", "libc-merge", "libresolv"},
		{"__libc_start_main@GLIBC_2.34", "start-files", "start files"},
		{"memcpy@GLIBC_2.14", "memcpy", "abifloor cc"},
		{"__memcpy_chk@GLIBC_2.3.4", "fortify", "-D_FORTIFY_SOURCE"},
		{"__explicit_bzero_chk@GLIBC_2.25", "fortify", "-D_FORTIFY_SOURCE"},
		{"__libc_single_threaded@GLIBC_2.32", "libstdcxx-headers", "abifloor cc"},
		{"arc4random@GLIBC_2.36", "polyfill", "abifloor cc --target debian-11: it links its own copy"},
		{"arc4random_uniform@GLIBC_2.36", "polyfill", "abifloor cc"},
		{"getrandom@GLIBC_2.25", "polyfill", "abifloor cc"},
		{"pidfd_open@GLIBC_2.36", NewFunction, "pidfd_open: glibc 2.36; not on debian-11"},
		{"copy_file_range@GLIBC_2.27", NewFunction, "glibc 2.27"},
		{"realpath@GLIBC_2.3", NewVersion, "abifloor cc --target debian-11"},
	} {
		c, ok := Of(tc.ref, "x86_64", Limit{Target: "debian-11"})
		if !ok || c.Class != tc.class || !strings.Contains(c.Fix, tc.fix) && !strings.Contains(c.Why, tc.fix) {
			t.Errorf("Of(%s) = %+v, %v; want class %s, fix with %q", tc.ref, c, ok, tc.class, tc.fix)
		}
	}
	for _, ref := range []string{"memcpy@GLIBCXX_3.4", "memcpy", "x@GLIBC_PRIVATE", "no_such_fn_anywhere@GLIBC_2.34"} {
		if c, ok := Of(ref, "x86_64", Limit{}); ok {
			t.Errorf("Of(%s) = %+v, want nothing", ref, c)
		}
	}
	if c, _ := Of("pidfd_open@GLIBC_2.36", "x86_64", Limit{Glibc: "2.31"}); !strings.Contains(c.Fix, "not in glibc 2.31") {
		t.Errorf("pidfd_open for glibc 2.31: %+v", c)
	}
}
