package elfx

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestKind builds one file of each kind with the real toolchain and checks
// the word elfx gives it.
func TestKind(t *testing.T) {
	cc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	const src = "int f(void) { return 0; }\nint main(void) { return f(); }\n"
	build := func(out string, args ...string) string {
		return fixture.Build(t, cc, dir, "k.c", src, out, args...)
	}
	cases := map[string]Kind{
		build("pie", "-pie", "-fPIE"):       PIEExecutable,
		build("nopie", "-no-pie"):           Executable,
		build("lib.so", "-shared", "-fPIC"): SharedLibrary,
		build("k.o", "-c"):                  Relocatable,
	}
	if fixture.Supports(cc, "-static") {
		cases[build("static", "-static")] = StaticExecutable
	}
	if fixture.Supports(cc, "-static-pie") {
		cases[build("static-pie", "-static-pie")] = StaticPIE
	}
	if objcopy, err := exec.LookPath("objcopy"); err == nil {
		dbg := filepath.Join(dir, "pie.debug")
		if out, err := exec.Command(objcopy, "--only-keep-debug", filepath.Join(dir, "pie"), dbg).CombinedOutput(); err != nil {
			t.Fatalf("objcopy: %v\n%s", err, out)
		}
		cases[dbg] = DebugInfo
	}
	if goTool, err := exec.LookPath("go"); err == nil && fixture.Have("go") {
		// A Go program built without cgo is static: the kernel starts it,
		// no loader binds anything.
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module k\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\nfunc main() {}\n"), 0o644)
		cmd := exec.Command(goTool, "build", "-o", "goprog", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("go build: %v\n%s", err, out)
		} else {
			cases[filepath.Join(dir, "goprog")] = StaticExecutable
		}
	}
	for path, want := range cases {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Kind(); got != want {
			t.Errorf("%s: kind %s, want %s", filepath.Base(path), got, want)
		}
		f.Close()
	}
}

func TestTriple(t *testing.T) {
	le, be := elf.ELFDATA2LSB, elf.ELFDATA2MSB
	c32, c64 := elf.ELFCLASS32, elf.ELFCLASS64
	for _, tc := range []struct {
		m                 elf.Machine
		class             elf.Class
		data              elf.Data
		triple, multiarch string
	}{
		{elf.EM_X86_64, c64, le, "x86_64-linux-gnu", "x86_64-linux-gnu"},
		{elf.EM_X86_64, c32, le, "x86_64-linux-gnux32", "x86_64-linux-gnux32"},
		{elf.EM_386, c32, le, "i686-linux-gnu", "i386-linux-gnu"},
		{elf.EM_AARCH64, c64, le, "aarch64-linux-gnu", "aarch64-linux-gnu"},
		{elf.EM_ARM, c32, le, "arm-linux-gnueabihf", "arm-linux-gnueabihf"},
		{elf.EM_PPC64, c64, le, "powerpc64le-linux-gnu", "powerpc64le-linux-gnu"},
		{elf.EM_PPC64, c64, be, "powerpc64-linux-gnu", "powerpc64-linux-gnu"},
		{elf.EM_S390, c64, be, "s390x-linux-gnu", "s390x-linux-gnu"},
		{elf.EM_RISCV, c64, le, "riscv64-linux-gnu", "riscv64-linux-gnu"},
		{elf.EM_MIPS, c64, le, "mips64el-linux-gnuabi64", "mips64el-linux-gnuabi64"},
		{elf.EM_68K, c32, be, "", ""},
	} {
		if got := Triple(tc.m, tc.class, tc.data); got != tc.triple {
			t.Errorf("Triple(%v, %v, %v) = %q, want %q", tc.m, tc.class, tc.data, got, tc.triple)
		}
		if got := Multiarch(tc.m, tc.class, tc.data); got != tc.multiarch {
			t.Errorf("Multiarch(%v, %v, %v) = %q, want %q", tc.m, tc.class, tc.data, got, tc.multiarch)
		}
	}
}

func TestParseArch(t *testing.T) {
	for in, want := range map[string]string{
		"x86_64": "x86_64", "amd64": "x86_64", "AMD64": "x86_64", "x86-64": "x86_64",
		"aarch64": "aarch64", "arm64": "aarch64", "i686": "i386", "i386": "i386", "386": "i386",
		"armhf": "arm", "armv7l": "arm", "arm": "arm", "ppc64el": "ppc64le", "ppc64le": "ppc64le",
		"s390x": "s390x", "riscv64": "riscv64", "loong64": "loongarch64", "": "", "vax": "", "sparc": "",
	} {
		got, ok := ParseArch(in)
		if got != want || ok != (want != "") {
			t.Errorf("ParseArch(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for arch, triple := range map[string]string{"arm": "arm-linux-gnueabihf", "i386": "i686-linux-gnu", "aarch64": "aarch64-linux-gnu"} {
		if got := ArchTriple(arch); got != triple {
			t.Errorf("ArchTriple(%q) = %q, want %q", arch, got, triple)
		}
	}
	if a, ok := ParseArch(HostArch()); !ok || a != HostArch() {
		t.Errorf("HostArch() = %q is not an Arch name", HostArch())
	}
}
