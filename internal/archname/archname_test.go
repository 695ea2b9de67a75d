package archname

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"amd64": "x86_64", "X86_64": "x86_64", "arm64": "aarch64", "i686": "i386",
		"armhf": "arm", "ppc64el": "ppc64le", "loong64": "loongarch64", "riscv64": "riscv64",
		"vax": "",
	} {
		if got, ok := Parse(in); got != want || ok != (want != "") {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if Triple("i386") != "i686-linux-gnu" || Triple("vax") != "" {
		t.Error("Triple")
	}
	if a, ok := Parse(Host()); !ok || a != Host() {
		t.Errorf("Host() = %q does not parse to itself", Host())
	}
}
