package bind

import (
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandTokens(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"/opt/lib", "/opt/lib", true},
		{"$ORIGIN", "/app/bin", true},
		{"$ORIGIN/../lib", "/app/bin/../lib", true},
		{"${ORIGIN}/lib", "/app/bin/lib", true},
		{"/usr/$LIB/x", "/usr/lib64/x", true},
		{"/usr/${LIB}", "/usr/lib64", true},
		{"/p/$PLATFORM", "/p/x86_64", true},
		{"$ORIGINAL/x", "$ORIGINAL/x", true}, // not a token: name continues
		{"$FOO/x", "$FOO/x", true},
		{"a$", "a$", true},
		{"${ORIGIN", "${ORIGIN", true},
	} {
		got, ok := expandTokens(tc.in, "/app/bin", "lib64", "x86_64")
		if got != tc.want || ok != tc.ok {
			t.Errorf("expandTokens(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := expandTokens("$ORIGIN/x", "", "lib64", "x86_64"); ok {
		t.Errorf("a path whose $ORIGIN is unknown must be dropped")
	}
}

func TestDefaultDirsOrder(t *testing.T) {
	o := &object{Arch: "x86_64", Machine: elf.EM_X86_64, Class: elf.ELFCLASS64, Data: elf.ELFDATA2LSB}
	got := strings.Join(defaultDirs(o, true), ":")
	// ld.so --help on Debian: multiarch first, then /lib, /usr/lib.
	want := "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib"
	if got != want {
		t.Errorf("default dirs = %s, want %s", got, want)
	}
	if got := libDir(o, false); got != "lib64" {
		t.Errorf("$LIB without multiarch = %s", got)
	}
}

func TestSystemCache(t *testing.T) {
	b, err := os.ReadFile("/etc/ld.so.cache")
	if err != nil {
		t.Skipf("no /etc/ld.so.cache here: %v", err)
	}
	c, err := parseCache(b)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() == 0 {
		t.Fatal("no entries")
	}
	for _, e := range c.Entries() {
		if _, err := os.Stat(e.Path); err != nil {
			t.Errorf("entry %s: %v", e.Name, err)
		}
		if strings.Contains(e.Path, "/") && filepath.Base(e.Path) != e.Name && !strings.HasPrefix(filepath.Base(e.Path), strings.TrimSuffix(e.Name, ".so")) {
			t.Logf("entry %s -> %s", e.Name, e.Path)
		}
	}
	if p := c.Lookup("libc.so.6", elf.EM_X86_64, elf.ELFCLASS64); runtimeIsAmd64() && p == "" {
		t.Errorf("libc.so.6 not in the cache for x86_64")
	}
	if p := c.Lookup("libc.so.6", elf.EM_AARCH64, elf.ELFCLASS64); runtimeIsAmd64() && p != "" && !strings.Contains(p, "aarch64") {
		t.Errorf("x86_64 libc returned for aarch64: %s", p)
	}
}

// cacheImage builds a new-format cache with the given entries.
func cacheImage(entries [][2]string, flags uint32) []byte {
	const hdr, ent = 48, 24
	strOff := hdr + ent*len(entries)
	var strs []byte
	b := make([]byte, strOff)
	copy(b, newCacheMagic)
	le := func(off int, v uint32) {
		b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	le(20, uint32(len(entries)))
	b[28] = 2
	for i, e := range entries {
		o := hdr + i*ent
		le(o, flags)
		le(o+4, uint32(strOff+len(strs)))
		strs = append(append(strs, e[0]...), 0)
		le(o+8, uint32(strOff+len(strs)))
		strs = append(append(strs, e[1]...), 0)
	}
	le(24, uint32(len(strs)))
	return append(b, strs...)
}

func TestParseCacheSynthetic(t *testing.T) {
	img := cacheImage([][2]string{{"libfoo.so.1", "/opt/lib/libfoo.so.1"}, {"libbar.so.2", "/lib/libbar.so.2"}}, 0x0303)
	c, err := parseCache(img)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Lookup("libfoo.so.1", elf.EM_X86_64, elf.ELFCLASS64); p != "/opt/lib/libfoo.so.1" {
		t.Errorf("lookup = %q", p)
	}
	if p := c.Lookup("libfoo.so.1", elf.EM_386, elf.ELFCLASS32); p != "" {
		t.Errorf("i386 lookup took an x86_64 entry: %q", p)
	}
	// Old format alone: strings after the 12-byte entries.
	old := []byte(oldCacheMagic + "\x00" + "\x01\x00\x00\x00" + "\x03\x03\x00\x00" + "\x00\x00\x00\x00" + "\x08\x00\x00\x00" + "libx.so\x00/l/libx.so\x00")
	c, err = parseCache(old)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Lookup("libx.so", elf.EM_X86_64, elf.ELFCLASS64); p != "/l/libx.so" {
		t.Errorf("old-format lookup = %q", p)
	}
}

func TestParseCacheMalformed(t *testing.T) {
	good := cacheImage([][2]string{{"libfoo.so.1", "/opt/lib/libfoo.so.1"}}, 0x0303)
	bad := map[string][]byte{
		"empty":        {},
		"magic only":   []byte(newCacheMagic),
		"garbage":      []byte("hello, world, this is not a cache at all, no no no"),
		"count huge":   patch(good, 20, 0xffffffff),
		"key outside":  patch(good, 48+4, 0x7fffffff),
		"path outside": patch(good, 48+8, uint32(len(good))),
		"unterminated": good[:len(good)-1],
		"old count":    []byte(oldCacheMagic + "\x00\xff\xff\xff\x0f"),
		"old strings":  []byte(oldCacheMagic + "\x00\x01\x00\x00\x00\x03\x03\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00"),
	}
	for i := 1; i < len(good)-1; i += 7 {
		bad["truncated"+string(rune('a'+i%26))] = good[:i]
	}
	for name, b := range bad {
		if strings.HasPrefix(name, "truncated") && len(b) >= 48+24 && b[len(b)-1] == 0 {
			continue // may be a valid prefix
		}
		if _, err := parseCache(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func patch(b []byte, off int, v uint32) []byte {
	c := append([]byte(nil), b...)
	c[off], c[off+1], c[off+2], c[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	return c
}

func runtimeIsAmd64() bool {
	b, err := os.ReadFile("/proc/sys/kernel/arch")
	return err == nil && strings.TrimSpace(string(b)) == "x86_64"
}

// TestRelocNames: types debug/elf lacks or misnames get the psABI name.
func TestRelocNames(t *testing.T) {
	for _, tc := range []struct {
		m    elf.Machine
		t    uint32
		want string
	}{
		{elf.EM_X86_64, uint32(elf.R_X86_64_JMP_SLOT), "R_X86_64_JUMP_SLOT"},
		{elf.EM_X86_64, uint32(elf.R_X86_64_TLSDESC), "R_X86_64_TLSDESC"},
		{elf.EM_ARM, uint32(rARMTLSDesc), "R_ARM_TLS_DESC"},
		{elf.EM_S390, uint32(r390IRelative), "R_390_IRELATIVE"},
		{elf.EM_RISCV, uint32(rRISCVIRelative), "R_RISCV_IRELATIVE"},
		{elf.EM_68K, 5, "type 5"},
	} {
		if got := relocName(tc.m, tc.t); got != tc.want {
			t.Errorf("relocName(%v, %d) = %s, want %s", tc.m, tc.t, got, tc.want)
		}
	}
}
