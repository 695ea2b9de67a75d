package bind

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/elfgen"
)

// smallELFs are real files small enough to seed fuzzing.
func smallELFs() [][]byte {
	var out [][]byte
	for _, p := range []string{"/usr/bin/true", "/bin/true", "/usr/lib/x86_64-linux-gnu/libdl.so.2", "/usr/lib/x86_64-linux-gnu/libpthread.so.0"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 256<<10 {
			out = append(out, b)
		}
	}
	return out
}

func FuzzParseObject(f *testing.F) {
	for _, b := range smallELFs() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parseObject(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, r := range o.refs {
			o.provides(r.Name, r.Version)
			if r.Binding != "eager" && r.Binding != "lazy" && r.Binding != "never" {
				t.Fatalf("binding %q", r.Binding)
			}
		}
		o.provides("malloc", "GLIBC_2.2.5")
		o.provides("malloc", "")
	})
}

// FuzzGoBuildInfo: whatever a .go.buildinfo section holds, its build
// settings are read within its bytes.
func FuzzGoBuildInfo(f *testing.F) {
	mod := "path\tx\nbuild\t-buildmode=exe\nbuild\t-ldflags=\"-bindnow -s\"\n"
	hdr := append([]byte("\xff Go buildinf:\x08\x02"), make([]byte, 16)...)
	seed := binary.AppendUvarint(append(binary.AppendUvarint(hdr, 6), "go1.26"...), uint64(len(mod)))
	f.Add(append(seed, mod...))
	f.Add(hdr)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, s := range parseBuildSettings(b) {
			if len(s) > len(b) {
				t.Fatalf("setting %q longer than the section", s)
			}
		}
	})
}

func FuzzParseCache(f *testing.F) {
	if b, err := os.ReadFile("/etc/ld.so.cache"); err == nil {
		f.Add(b)
	}
	f.Add(cacheImage([][2]string{{"libfoo.so.1", "/opt/lib/libfoo.so.1"}}, 0x0303))
	f.Add([]byte(oldCacheMagic + "\x00\x01\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00libx.so\x00/l/libx.so\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseCache(b)
		if err != nil {
			return
		}
		for _, e := range c.Entries() {
			c.Lookup(e.Name, elf.EM_X86_64, elf.ELFCLASS64)
			if len(e.Name) >= pathMax || len(e.Path) >= pathMax {
				t.Fatalf("a %d-byte string kept", max(len(e.Name), len(e.Path)))
			}
		}
		if c.Len() > len(b)/12 {
			t.Fatalf("%d entries from %d bytes", c.Len(), len(b))
		}
	})
}

// TestMalformedRelocations patches a real library: a relocation naming a
// symbol past the dynamic symbol table, and a relocation table running
// past the end of the file, must each give an error naming the file.
func TestMalformedRelocations(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libd.so")
	cc(t, gcc, "-shared", "-fPIC", "-o", lib, write(t, dir, "d.c", "extern int ext_data;\nint get(void){return ext_data;}\n"))
	img, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	rela := ef.Section(".rela.dyn")
	if rela == nil || ef.Class != elf.ELFCLASS64 {
		t.Skip("fixture has no 64-bit .rela.dyn")
	}
	// Find the GLOB_DAT entry for ext_data.
	found := -1
	for off := int(rela.Offset); off+24 <= int(rela.Offset+rela.Size); off += 24 {
		info := binary.LittleEndian.Uint64(img[off+8:])
		if info>>32 != 0 && uint32(info) == uint32(elf.R_X86_64_GLOB_DAT) {
			found = off
		}
	}
	if found < 0 {
		t.Skip("no GLOB_DAT relocation in the fixture")
	}
	badSym := append([]byte(nil), img...)
	binary.LittleEndian.PutUint64(badSym[found+8:], uint64(0xffffff)<<32|uint64(elf.R_X86_64_GLOB_DAT))

	// DT_RELASZ far past the end of the file.
	badSize := append([]byte(nil), img...)
	dyn := ef.Section(".dynamic")
	for off := int(dyn.Offset); off+16 <= int(dyn.Offset+dyn.Size); off += 16 {
		if elf.DynTag(binary.LittleEndian.Uint64(badSize[off:])) == elf.DT_RELASZ {
			binary.LittleEndian.PutUint64(badSize[off+8:], 1<<40)
		}
	}
	for name, b := range map[string][]byte{"symbol index": badSym, "table size": badSize} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".so")
		os.WriteFile(p, b, 0o644)
		rep := audit1(t, Options{}, p)
		var fe *elfx.FormatError
		if !errors.As(rep.Error, &fe) || !strings.Contains(rep.Error.Error(), p) {
			t.Errorf("%s: error %v does not name the file or is no *elfx.FormatError", name, rep.Error)
		}
		if msg := rep.ErrorMessage(); strings.Contains(msg, p) {
			t.Errorf("%s: message %q repeats the path", name, msg)
		}
		t.Logf("%s: %s", name, rep.Error)
	}
	// The intact library reads cleanly: a plugin (no soname) whose host
	// must provide the eagerly bound ext_data.
	if rep := audit1(t, Options{}, lib); rep.Error != nil || rep.DiesAtStart || rep.HostSymbols != 1 || rep.Unresolved[0].Relocation != "R_X86_64_GLOB_DAT" {
		t.Errorf("intact: %+v", rep)
	}
}

// TestNameBomb (issue 10, item 4): a small library whose symbol names all
// point at one long string costs what the file costs, and is reported as
// malformed.
func TestNameBomb(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb.so")
	if err := os.WriteFile(p, elfgen.NameBomb(10000, 128<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep FileReport
	n := elfgen.Allocated(func() { rep = audit1(t, Options{}, p) })
	var fe *elfx.FormatError
	if !errors.As(rep.Error, &fe) {
		t.Errorf("error %v, want an *elfx.FormatError", rep.Error)
	}
	if n > 32<<20 {
		t.Errorf("bind of a 400 KB file allocated %d MB", n>>20)
	}
}

// FuzzSearchPath expands an RPATH and RUNPATH as a search does (issue
// 19, item 6): whatever the tokens, the search path holds each directory
// once, none as long as PATH_MAX, and costs at most its input's size in
// directories.
func FuzzSearchPath(f *testing.F) {
	f.Add("$ORIGIN/../lib:$ORIGIN", "${LIB}/x:/usr/$PLATFORM", "/opt/app/bin")
	f.Add(strings.Repeat("$ORIGIN/../", 500), "", "/a")
	f.Add("::.:$ORIGINX:${ORIGIN}:$", "$LIB$LIB", "")
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, rpath, runpath, origin string) {
		a := New(Options{Sysroot: root})
		o := &object{Machine: elf.EM_X86_64, Class: elf.ELFCLASS64, Data: elf.ELFDATA2LSB, Arch: "x86_64"}
		if rpath != "" {
			o.Rpath = strings.Split(rpath, ":")
		}
		if runpath != "" {
			o.Runpath = strings.Split(runpath, ":")
			o.HasRun = true
		}
		l := &loaded{obj: o, origin: origin}
		dirs := a.searchPath(l)
		seen := map[string]bool{}
		for _, d := range dirs {
			if len(d.name) >= pathMax || seen[d.name] {
				t.Fatalf("directory %q (%d bytes) twice or too long", d.name[:min(len(d.name), 64)], len(d.name))
			}
			seen[d.name] = true
		}
		if len(dirs) > len(o.Rpath)+len(o.Runpath) {
			t.Fatalf("%d directories from %d entries", len(dirs), len(o.Rpath)+len(o.Runpath))
		}
		for _, d := range append(o.Rpath, o.Runpath...) {
			e, ok := expandTokens(d, origin, "lib64", "x86_64")
			if !strings.Contains(d, "$") && (!ok || e != d) {
				t.Fatalf("%q without tokens expanded to %q", d, e)
			}
			if bound := len(d) + strings.Count(d, "$")*max(len(origin), len("x86_64")); ok && len(e) > bound {
				t.Fatalf("%d-byte entry expanded to %d bytes, over %d", len(d), len(e), bound)
			}
		}
		// The same object's search path is built once.
		if again := a.searchPath(l); len(again) != len(dirs) {
			t.Fatal("search path rebuilt")
		}
	})
}
