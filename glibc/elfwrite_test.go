package glibc

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/run"
)

// The published values of the two hashes (the System V ABI's, and the
// GNU hash's, h*33+c from 5381).
func TestHashes(t *testing.T) {
	for _, tt := range []struct {
		name     string
		elf, gnu uint32
	}{
		{name: "", elf: 0, gnu: 0x00001505},
		{name: "printf", elf: 0x077905a6, gnu: 0x156b2bb8},
		{name: "exit", elf: 0x0006cf04, gnu: 0x7c967e3f},
		{name: "syscall", elf: 0x0b09985c, gnu: 0xbac212a0},
		{name: "GLIBC_2.2.5", elf: 0x09691a75, gnu: 0x427315ba},
	} {
		if got := elfHash(tt.name); got != tt.elf {
			t.Errorf("elfHash(%q) = %#08x, want %#08x", tt.name, got, tt.elf)
		}
		if got := elfx.GNUHashOf(tt.name); got != tt.gnu {
			t.Errorf("elfx.GNUHashOf(%q) = %#08x, want %#08x", tt.name, got, tt.gnu)
		}
	}
}

// readArchive splits a GNU ar archive written by writeArchive into its
// members and its index (symbol → member offset).
func readArchive(b []byte) ([]arMember, map[string]int, error) {
	if !bytes.HasPrefix(b, []byte("!<arch>\n")) {
		return nil, nil, fmt.Errorf("no ar magic")
	}
	var (
		members []arMember
		index   = map[string]int{}
		long    []byte
	)
	for off := 8; off < len(b); {
		if off+60 > len(b) || string(b[off+58:off+60]) != "`\n" {
			return nil, nil, fmt.Errorf("bad header at %d", off)
		}
		h := b[off : off+60]
		name := strings.TrimRight(string(h[:16]), " ")
		size, err := strconv.Atoi(strings.TrimSpace(string(h[48:58])))
		if err != nil || off+60+size > len(b) {
			return nil, nil, fmt.Errorf("bad size at %d", off)
		}
		data := b[off+60 : off+60+size]
		switch {
		case name == "/":
			n := int(binary.BigEndian.Uint32(data))
			names := bytes.Split(data[4+4*n:], []byte{0})
			for i := range n {
				index[string(names[i])] = int(binary.BigEndian.Uint32(data[4+4*i:]))
			}
		case name == "//":
			long = data
		case strings.HasPrefix(name, "/"):
			at, err := strconv.Atoi(name[1:])
			if err != nil || at >= len(long) {
				return nil, nil, fmt.Errorf("bad long name %q", name)
			}
			end := bytes.Index(long[at:], []byte("/\n"))
			members = append(members, arMember{name: string(long[at : at+end]), data: data})
		default:
			members = append(members, arMember{name: strings.TrimSuffix(name, "/"), data: data})
		}
		if mode := strings.TrimSpace(string(h[40:48])); name != "/" && name != "//" && mode != "644" {
			return nil, nil, fmt.Errorf("%s: mode %s", name, mode)
		}
		off += 60 + size + size%2
	}
	return members, index, nil
}

// The archive's layout: the index names each defined global with the
// offset of its member's header; names over 15 bytes go to "//".
func TestArchiveLayout(t *testing.T) {
	a, err := writeThunk("x86_64", "fcntl64", "fcntl")
	if err != nil {
		t.Fatal(err)
	}
	b, err := writeThunk("x86_64", "__isoc23_strtol", "strtol")
	if err != nil {
		t.Fatal(err)
	}
	out, err := writeArchive([]arMember{{"short.o", a}, {"compat-__isoc23_strtol.o", b}})
	if err != nil {
		t.Fatal(err)
	}
	ms, index, err := readArchive(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].name != "short.o" || ms[1].name != "compat-__isoc23_strtol.o" || !bytes.Equal(ms[1].data, b) {
		t.Fatalf("members %v", ms)
	}
	if len(index) != 2 {
		t.Errorf("index %v, want fcntl64 and __isoc23_strtol only (not the undefined)", index)
	}
	for sym, member := range map[string]string{"fcntl64": "short.o/", "__isoc23_strtol": "/0"} {
		off, ok := index[sym]
		if !ok || off+16 > len(out) || strings.TrimRight(string(out[off:off+16]), " ") != member {
			t.Errorf("index: %s at %d, not the header of %s", sym, off, member)
		}
	}
	if !bytes.Contains(out, []byte("//                                              26        `\ncompat-__isoc23_strtol.o/\n")) {
		t.Errorf("no long-name table in\n%q", out)
	}
	if _, err := writeArchive([]arMember{{"a/b.o", a}}); err == nil {
		t.Error("a member name with a slash was taken")
	}
	if _, err := writeArchive([]arMember{{"x.o", []byte("not ELF")}}); err == nil || !strings.Contains(err.Error(), "x.o") {
		t.Errorf("err = %v", err)
	}
}

// assemblers are the assemblers of the four architectures.
var assemblers = map[string]string{"x86_64": "as", "aarch64": "aarch64-linux-gnu-as", "s390x": "s390x-linux-gnu-as", "i386": "i686-linux-gnu-as"}

// writeThunk writes what the assembler makes of thunk(), byte for byte,
// the string table's shared tails included (fscanf in __isoc23_fscanf,
// res_search in __res_search).
func TestThunksAsAssembled(t *testing.T) {
	pairs := [][2]string{{"__isoc23_fscanf", "fscanf"}, {"res_search", "__res_search"}, {"fcntl64", "fcntl"}, {"__longjmp_chk", "longjmp"}}
	for arch, as := range assemblers {
		t.Run(arch, func(t *testing.T) {
			if !fixture.Have(as) {
				t.Skipf("no %s", as)
			}
			dir := t.TempDir()
			for _, p := range pairs {
				src, _ := thunk(arch, p[0], p[1])
				s := filepath.Join(dir, p[0]+".s")
				if err := os.WriteFile(s, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := run.Output(context.Background(), as, "-o", s+".o", s); err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(s + ".o")
				if err != nil {
					t.Fatal(err)
				}
				got, err := writeThunk(arch, p[0], p[1])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					os.WriteFile(filepath.Join(os.TempDir(), "thunk-"+arch+".o"), got, 0o644)
					t.Errorf("%s → %s: not what %s wrote (%d bytes, want %d)", p[0], p[1], as, len(got), len(want))
				}
			}
		})
	}
}

// synthLib is a stub with what the database's libraries lack on some
// architecture: thread-local data, an alias group of objects, a weak
// object, hidden and default versions of one name.
var synthLib = StubLib{
	Soname:   "libabft.so.1",
	Versions: []string{"ABFT_1.0", "ABFT_2.0"},
	Syms: []StubSym{
		{Name: "f", Version: "ABFT_1.0", Kind: Func},
		{Name: "f", Version: "ABFT_2.0", Kind: Func, Default: true},
		{Name: "g", Version: "ABFT_1.0", Kind: Func, Weak: true, Default: true},
		{Name: "tv", Version: "ABFT_1.0", Kind: TLS, Size: 4, Default: true},
		{Name: "tbig", Version: "ABFT_2.0", Kind: TLS, Size: 40, Default: true},
		{Name: "obj", Version: "ABFT_1.0", Kind: Object, Size: 24, Alias: "obj", Default: true},
		{Name: "_obj", Version: "ABFT_1.0", Kind: Object, Size: 24, Alias: "obj", Weak: true, Default: true},
		{Name: "small", Version: "ABFT_2.0", Kind: Object, Size: 2, Default: true},
		{Name: "empty", Version: "ABFT_2.0", Kind: Object, Size: 0, Default: true},
	},
}

const synthProg = `#include <stdio.h>
extern __thread int tv;
extern __thread char tbig[40];
extern int obj[6], _obj[6];
extern short small;
extern void f(void);
extern void g(void) __attribute__((weak));
extern void f_old(void);
__asm__(".symver f_old, f@ABFT_1.0");
int main(void) {
	f(); f_old(); if (g) g();
	tv = 1; tbig[3] = 2; small = 3;
	printf("%d %d %p\n", obj[1], _obj[2], (void *)&f);
	return 0;
}
`

// progs are what the link comparison links: prog (memcpy, stat before
// 2.33, threads, stdout and environ by copy relocation), and one with the
// redirects (C23's strtol and sscanf), stderr, timezone, libm and
// libresolv's _res.
var progs = map[string]string{
	"prog.c": prog,
	"redir.c": `#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
#include <fcntl.h>
#include <resolv.h>
#include <sys/stat.h>
int main(int argc, char **argv) {
	struct stat st; int x = 0; tzset();
	long v = strtol(argc > 1 ? argv[1] : "12", 0, 10);
	sscanf("7", "%d", &x);
	if (lstat(argv[0], &st) != 0 || fcntl(1, F_GETFD) < 0) return 3;
	fprintf(stderr, "%ld %d %ld %f %p\n", v, x, timezone, sqrt((double)v), (void *)&_res);
	return 0;
}
`,
}

// The strongest check of the written stubs: programs linked against
// them and against the stubs the compiler, the assembler and ar made
// (StubFormat 10) are the same files, byte for byte, on every
// architecture with a cross compiler, with GNU ld and gold (x86_64), and
// with clang; with lld (x86_64), the same in all that binds.
func TestStubsLinkSameAsTools(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct{ arch, cc string }{
		{"x86_64", "gcc"}, {"aarch64", "aarch64-linux-gnu-gcc"}, {"i386", "i686-linux-gnu-gcc"}, {"s390x", "s390x-linux-gnu-gcc"},
	} {
		t.Run(tt.arch, func(t *testing.T) {
			if !fixture.Have(tt.cc) {
				t.Skipf("no %s", tt.cc)
			}
			if tt.cc == "gcc" && HostArch() != tt.arch {
				t.Skip("gcc is not an x86_64 compiler here")
			}
			dir := t.TempDir()
			dirs := map[bool]string{}
			for _, tools := range []bool{true, false} {
				d := filepath.Join(dir, fmt.Sprint("stubs-tools-", tools))
				if err := mkdir(d); err != nil {
					t.Fatal(err)
				}
				if err := writeStubs(ctx, d, StubOptions{Arch: tt.arch, Target: "2.17", CC: tt.cc}, tools); err != nil {
					t.Fatal(err)
				}
				// The synthetic library, by the same two roads.
				b := &builder{ctx: ctx, cc: tt.cc, arch: tt.arch, tools: tools, sem: make(chan struct{}, 1)}
				if err := b.lib(d, d, &synthLib); err != nil {
					t.Fatal(err)
				}
				dirs[tools] = d
			}
			for _, name := range []string{"libabifloor_compat.a", InitObject} {
				want, _ := os.ReadFile(filepath.Join(dirs[true], name))
				got, err := os.ReadFile(filepath.Join(dirs[false], name))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s differs from ar's (%v)", name, err)
				}
			}
			type link struct {
				cc    string
				flags []string
			}
			links := map[string]link{"ld": {tt.cc, nil}}
			if tt.arch == "x86_64" {
				// The cross drivers look for TRIPLE-ld.lld, which
				// LLVM's package does not install.
				if fixture.Have("ld.lld") {
					links["lld"] = link{tt.cc, []string{"-fuse-ld=lld"}}
				} else {
					t.Log("no ld.lld: the stubs are not linked with lld")
				}
				if fixture.Have("ld.gold") {
					links["gold"] = link{tt.cc, []string{"-fuse-ld=gold"}}
				}
				if fixture.Have("clang") {
					links["clang"] = link{"clang", nil}
				}
			}
			srcs := map[string]string{"synth.c": synthProg}
			for k, v := range progs {
				srcs[k] = v
			}
			for ln, l := range links {
				for src, code := range srcs {
					var outs [2][]byte
					for i, tools := range []bool{true, false} {
						d := dirs[tools]
						srcPath := filepath.Join(dir, src)
						if err := os.WriteFile(srcPath, []byte(code), 0o644); err != nil {
							t.Fatal(err)
						}
						bin := filepath.Join(dir, fmt.Sprintf("%s-%s-%d", src, ln, i))
						// The libraries after the source, as a link names them.
						args := append([]string{"-O2", "-pthread", "-std=c2x", "-o", bin, "-L" + d, "-Wl,--wrap=main", filepath.Join(d, InitObject), srcPath, "-lm"}, l.flags...)
						if src == "synth.c" {
							args = append(args, filepath.Join(d, synthLib.Soname))
						}
						if _, err := (run.Cmd{Path: fixture.Compiler(t, l.cc), Args: args}).Run(ctx); err != nil {
							t.Fatalf("%s %s: %v", l.cc, strings.Join(args, " "), err)
						}
						var err error
						if outs[i], err = os.ReadFile(bin); err != nil {
							t.Fatal(err)
						}
					}
					if bytes.Equal(outs[0], outs[1]) {
						continue
					}
					// The order of the output's dynamic symbols follows the
					// link editor's own table, which the order of a
					// library's symbols can change (gold; GNU ld for a
					// library whose symbols hash alike): then all that
					// binds must be the same.
					da, ea := dynamicView(outs[0])
					db, eb := dynamicView(outs[1])
					if (src == "synth.c" || ln == "gold" || ln == "lld") && ea == nil && eb == nil && da == db && strings.Contains(da, "rel ") {
						continue
					}
					{
						keep := filepath.Join(os.TempDir(), fmt.Sprintf("abifloor-link-%s-%s-%s", tt.arch, src, ln))
						os.WriteFile(keep+"-tools", outs[0], 0o755)
						os.WriteFile(keep+"-written", outs[1], 0o755)
						t.Errorf("%s linked by %s: the output differs between the tools' stubs and the written ones (kept in %s-*)", src, ln, keep)
					}
				}
			}
		})
	}
}

// Every library of every architecture's newest and oldest releases is
// written and read back by elfx as the stub says, and by debug/elf.
func TestWriteStubLibReadBack(t *testing.T) {
	for _, arch := range []string{"x86_64", "i386", "aarch64", "s390x"} {
		a, err := LoadArch(arch, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{a.First, "2.17", a.Newest} {
			if _, err := a.Check(target); err != nil {
				continue // 2.17 is older than aarch64's first
			}
			for _, s := range a.Select(target) {
				checkStub(t, arch, &s)
			}
		}
		checkStub(t, arch, &synthLib)
	}
}

// checkStub writes s for arch and reads it back: every symbol version
// with its kind, size, binding and default flag, found by the loader's
// GNU hash lookup too, each value inside its section.
func checkStub(t testing.TB, arch string, s *StubLib) {
	t.Helper()
	b, err := writeStubLib(arch, s)
	if err != nil {
		t.Fatalf("%s %s: %v", arch, s.Soname, err)
	}
	f, err := elfx.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("%s %s: %v", arch, s.Soname, err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s %s: %v", arch, s.Soname, err)
	}
	got := map[string]elfx.Symbol{}
	for _, sym := range syms {
		if sym.Name == sym.Version {
			continue // the version node's own
		}
		if !sym.Exported() {
			t.Errorf("%s %s: %s@%s is not exported", arch, s.Soname, sym.Name, sym.Version)
		}
		got[sym.Name+"@"+sym.Version] = sym
	}
	if len(got) != len(s.Syms) {
		t.Errorf("%s %s: %d symbols read, %d written", arch, s.Soname, len(got), len(s.Syms))
	}
	h, err := f.GNUHash()
	if err != nil || h == nil {
		t.Fatalf("%s %s: GNU hash: %v", arch, s.Soname, err)
	}
	kinds := map[Kind]elf.SymType{Func: elf.STT_FUNC, Object: elf.STT_OBJECT, TLS: elf.STT_TLS}
	for _, w := range s.Syms {
		g, ok := got[w.Name+"@"+w.Version]
		size := w.Size
		if w.Kind == Func {
			size = 0 // as the compiler's stubs: .zero 1 without .size
		}
		wantBind := elf.STB_GLOBAL
		if w.Weak {
			wantBind = elf.STB_WEAK
		}
		if !ok || g.Type != kinds[w.Kind] || g.Size != size || g.Default != w.Default || g.Bind != wantBind {
			t.Errorf("%s %s: %s@%s read as %+v, written %+v", arch, s.Soname, w.Name, w.Version, g, w)
		}
		found := false
		h.Lookup(w.Name, elfx.GNUHashOf(w.Name), func(sym elfx.Symbol) bool {
			found = found || sym.Version == w.Version
			return found
		})
		if !found {
			t.Errorf("%s %s: the GNU hash table does not find %s@%s", arch, s.Soname, w.Name, w.Version)
		}
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s %s: debug/elf: %v", arch, s.Soname, err)
	}
	dsyms, err := ef.DynamicSymbols()
	if err != nil {
		t.Fatalf("%s %s: debug/elf: %v", arch, s.Soname, err)
	}
	var tls *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_TLS {
			tls = p
		}
	}
	for _, d := range dsyms {
		if d.Section == elf.SHN_ABS {
			continue
		}
		if int(d.Section) >= len(ef.Sections) {
			t.Fatalf("%s %s: %s in section %d", arch, s.Soname, d.Name, d.Section)
		}
		sec := ef.Sections[d.Section]
		lo, hi := sec.Addr, sec.Addr+sec.Size
		v := d.Value
		if elf.ST_TYPE(d.Info) == elf.STT_TLS {
			if tls == nil {
				t.Fatalf("%s %s: TLS symbol %s without PT_TLS", arch, s.Soname, d.Name)
			}
			v += tls.Vaddr
		}
		if v < lo || v+max(d.Size, 1) > hi {
			t.Errorf("%s %s: %s at %#x+%d outside %s [%#x, %#x)", arch, s.Soname, d.Name, v, d.Size, sec.Name, lo, hi)
		}
	}
}

// FuzzWriteStubLib: any StubLib the writer takes reads back as written.
func FuzzWriteStubLib(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x10\x21\x32\x43"), uint8(0))
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789"), uint8(3))
	archs := []string{"x86_64", "i386", "aarch64", "s390x"}
	f.Fuzz(func(t *testing.T, data []byte, archIdx uint8) {
		arch := archs[int(archIdx)%len(archs)]
		s := StubLib{Soname: "libfuzz.so.1"}
		nv := 1
		if len(data) > 0 {
			nv = 1 + int(data[0])%4
		}
		for i := range nv {
			s.Versions = append(s.Versions, fmt.Sprintf("FZ_%d.%d", 1+i, i*3))
		}
		seen := map[string]bool{}
		for i := 1; i+2 < len(data) && len(s.Syms) < 500; i += 3 {
			c, d, e := data[i], data[i+1], data[i+2]
			sym := StubSym{
				Name:    fmt.Sprintf("s%x_%s", c%32, strings.Repeat("n", int(d%5))),
				Version: s.Versions[int(d)%nv],
				Kind:    []Kind{Func, Object, TLS}[int(c>>5)%3],
				Size:    uint64(e) * uint64(1+d%3),
				Weak:    e&1 != 0,
				Default: e&2 != 0,
			}
			if e&4 != 0 && sym.Kind != Func {
				sym.Alias = fmt.Sprint("group", d%3)
			}
			if seen[sym.Name+"@"+sym.Version] {
				continue
			}
			seen[sym.Name+"@"+sym.Version] = true
			s.Syms = append(s.Syms, sym)
		}
		checkStub(t, arch, &s)
	})
}

// dynamicView is what the loader binds in an executable, in an order of
// its own: NEEDED, the dynamic symbols with their versions, the version
// needs, and each dynamic relocation by offset, type, symbol and addend.
func dynamicView(b []byte) (string, error) {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	var lines []string
	needed, err := f.DynString(elf.DT_NEEDED)
	if err != nil {
		return "", err
	}
	lines = append(lines, "needed "+strings.Join(needed, " "))
	syms, err := f.DynamicSymbols()
	if err != nil {
		return "", err
	}
	for _, s := range syms {
		lines = append(lines, fmt.Sprintf("sym %s@%s %s %d %v %v %t", s.Name, s.Version, s.Library, s.Size, elf.ST_TYPE(s.Info), elf.ST_BIND(s.Info), s.Section == elf.SHN_UNDEF))
	}
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_RELA && sec.Type != elf.SHT_REL || sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			return "", err
		}
		ent := int(sec.Entsize)
		for i := 0; ent > 0 && i+ent <= len(data); i += ent {
			var off, info, sym, typ uint64
			var addend int64
			if f.Class == elf.ELFCLASS64 {
				off, info = f.ByteOrder.Uint64(data[i:]), f.ByteOrder.Uint64(data[i+8:])
				sym, typ = info>>32, info&0xffffffff
				if sec.Type == elf.SHT_RELA {
					addend = int64(f.ByteOrder.Uint64(data[i+16:]))
				}
			} else {
				off, info = uint64(f.ByteOrder.Uint32(data[i:])), uint64(f.ByteOrder.Uint32(data[i+4:]))
				sym, typ = info>>8, info&0xff
				if sec.Type == elf.SHT_RELA {
					addend = int64(int32(f.ByteOrder.Uint32(data[i+8:])))
				}
			}
			name := ""
			if sym > 0 && int(sym) <= len(syms) {
				name = syms[sym-1].Name + "@" + syms[sym-1].Version
			}
			lines = append(lines, fmt.Sprintf("rel %s %#x %d %s %d", sec.Name, off, typ, name, addend))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), nil
}
