package sites

import (
	"debug/elf"
	"os"
	"testing"

	"golang.org/x/arch/x86/x86asm"
)

// checkLen fails t when x86Len measures b and x86asm does not decode it
// to the same length.
func checkLen(t *testing.T, b []byte) bool {
	t.Helper()
	n := x86Len(b)
	if n == 0 {
		return true
	}
	inst, err := x86asm.Decode(b, 64)
	if err != nil || inst.Len != n {
		t.Errorf("% x: x86Len %d, x86asm %d (%v)", b[:min(len(b), 16)], n, inst.Len, err)
		return false
	}
	return true
}

// TestX86LenExhaustive holds the length walk to x86asm over every
// opcode of every map, with every ModRM byte, three SIB bytes, and the
// prefixes compiled code uses: wherever x86Len measures, x86asm agrees.
func TestX86LenExhaustive(t *testing.T) {
	pres := [][]byte{nil, {0x66}, {0xf2}, {0xf3}, {0x64}, {0x66, 0x64}, {0xf0}, {0x2e, 0x66}}
	rexes := []int{-1, 0x48, 0x41}
	maps := [][]byte{nil, {0x0f}, {0x0f, 0x38}, {0x0f, 0x3a}}
	step := 1
	if testing.Short() {
		pres, rexes, step = pres[:3], rexes[:2], 17
	}
	measured, bad := 0, 0
	for _, pre := range pres {
		for _, rex := range rexes {
			for _, esc := range maps {
				for op := 0; op < 256; op++ {
					for modrm := 0; modrm < 256; modrm += step {
						for _, sib := range []byte{0x25, 0xc5} {
							b := append([]byte{}, pre...)
							if rex >= 0 {
								b = append(b, byte(rex))
							}
							b = append(b, esc...)
							b = append(b, byte(op), byte(modrm), sib)
							for len(b) < 24 {
								b = append(b, 0x11)
							}
							if x86Len(b) > 0 {
								measured++
							}
							if !checkLen(t, b) {
								if bad++; bad > 20 {
									t.Fatal("too many")
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d instructions measured by the table", measured)
	if measured == 0 {
		t.Fatal("the table measured nothing")
	}
}

// FuzzX86Len holds the length walk to x86asm on any bytes: wherever
// x86Len measures, x86asm decodes the same length.
func FuzzX86Len(f *testing.F) {
	for _, s := range [][]byte{
		{0x48, 0x89, 0xe5}, {0xe8, 0, 0, 0, 0}, {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0},
		{0x66, 0x0f, 0x1f, 0x44, 0, 0}, {0xf3, 0x0f, 0x1e, 0xfa}, {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8},
		{0x66, 0x41, 0xc7, 0x44, 0x24, 0x08, 1, 2}, {0xf7, 0x05, 1, 2, 3, 4, 5, 6, 7, 8},
		{0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08}, {0xf2, 0x0f, 0x38, 0xf1, 0xc1},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkLen(t, b)
	})
}

// BenchmarkWalk measures the length walk over the test program's own
// code (Go's x86-64 code), by the table (x86Len, x86asm where it does
// not measure) and by x86asm alone, as the walk to a candidate was.
func BenchmarkWalk(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Skip(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil || f.Machine != elf.EM_X86_64 {
		b.Skip("no x86-64 .text")
	}
	code, err := s.Data()
	if err != nil {
		b.Fatal(err)
	}
	code = code[:min(len(code), 1<<20)]
	walk := func(b *testing.B, step func([]byte) int) {
		b.SetBytes(int64(len(code)))
		for b.Loop() {
			for i := 0; i < len(code); {
				i += max(step(code[i:]), 1)
			}
		}
	}
	b.Run("table", func(b *testing.B) {
		walk(b, func(c []byte) int {
			if n := x86Len(c); n > 0 {
				return n
			}
			return x86Decode1(c).n
		})
	})
	b.Run("x86asm", func(b *testing.B) {
		walk(b, func(c []byte) int { return x86Decode1(c).n })
	})
}
