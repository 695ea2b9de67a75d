package sites

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
)

// The fixture holds each kind of use: calls through the PLT, a call
// inlined from a static inline function in a header, a function whose
// address is taken (noinline, so it stays a use of its own), data words
// holding function pointers, and a copied object (stdout).
const truthHeader = `#include <stdlib.h>
static inline long to_long(const char *s) { return strtol(s, 0, 10); }
`

const truthC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conv.h"
typedef long (*conv_fn)(const char *, char **, int);
conv_fn table[] = { strtol, (conv_fn)strtoll };
void *(*copier)(void *, const void *, size_t) = memcpy;
__attribute__((noinline)) conv_fn pick(int i) { return i ? strtol : (conv_fn)strtoul; }
int main(int argc, char **argv) {
	char buf[64];
	long x = to_long(argv[0]);
	x += pick(argc)(argv[0], 0, 0);
	memcpy(buf, argv[0], argc & 31);
	x += table[argc & 1](argv[0], 0, 0);
	fprintf(stdout, "%ld %p\n", x, (void *)copier);
	return buf[3] + (stdout != 0);
}
`

const truthCXX = `#include <iostream>
#include <string>
#include <vector>
#include <stdexcept>
int main(int argc, char **argv) {
	std::string s(argv[0]);
	std::vector<std::string> v;
	v.push_back(s + "x");
	if (argc > 3) throw std::runtime_error(s);
	std::cout << s << v.size() << std::endl;
	return (int)s.size();
}
`

// tool finds a program or skips t.
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not found: %v", name, err)
	}
	return p
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// imports lists every versioned symbol path imports, as Find names them.
func imports(t *testing.T, path string) []string {
	t.Helper()
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range syms {
		if (s.Undefined() || s.Library != "") && s.Version != "" {
			out = append(out, s.String())
		}
	}
	return out
}

func find(t *testing.T, path string, want []string, opt Options) *Result {
	t.Helper()
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opt.Path = path
	opt.NoDefaultDebugDir = true
	res, err := Find(f, want, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// expected is one use objdump shows.
type expected struct {
	addr     uint64
	name     string // the symbol's name, without version
	function string
	fnAddr   uint64 // where objdump's function symbol starts
	file     string
	line     int
	text     string
	inlined  []string // objdump's "inlined by FILE:LINE" chain, innermost first
}

var (
	reFunc   = regexp.MustCompile(`^[0-9a-f]+ <(.+)>:$`)
	reLine   = regexp.MustCompile(`^(/.*):(\d+)( \(discriminator \d+\))?$`)
	reInsn   = regexp.MustCompile(`^\s*([0-9a-f]+):\t(.*)$`)
	reAnnot  = regexp.MustCompile(`<([^<>+-]+)([+-]0x[0-9a-f]+)?>`)
	reTarget = regexp.MustCompile(`^(?:bnd |notrack )?(?:call|jmp|j[a-z]+)\s+([0-9a-f]+) <`)
	reSect   = regexp.MustCompile(`^Disassembly of section (\S+):$`)
	reInl    = regexp.MustCompile(`^inlined by (/.*):(\d+)( \(discriminator \d+\))? \(.*\)$`)
)

// objdumpUses reads objdump -d -l of path: every instruction outside the
// PLT whose operand objdump names after an imported symbol (sym@plt, or
// sym@VERSION for a GOT slot, data word or copy), with the symbol it
// lies in and the line objdump gives it. It also returns each PLT
// entry's address by name.
func objdumpUses(t *testing.T, objdump, path string, names map[string]bool) ([]expected, map[string]uint64, map[uint64]string) {
	sizes := symSizes(t, path)
	out := run(t, objdump, "-d", "-l", "--inlines", "--no-show-raw-insn", path)
	var uses []expected
	var chain []string
	plt := map[string]uint64{}
	insns := map[uint64]string{}
	var fn, file, sect string
	var fnAddr uint64
	line := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := reSect.FindStringSubmatch(l); m != nil {
			sect = m[1]
			continue
		}
		if m := reFunc.FindStringSubmatch(l); m != nil {
			fn, file, line = m[1], "", 0
			fnAddr, _ = strconv.ParseUint(strings.Fields(l)[0], 16, 64)
			if name, ok := strings.CutSuffix(fn, "@plt"); ok {
				plt[name] = fnAddr
			}
			continue
		}
		if m := reInl.FindStringSubmatch(l); m != nil {
			chain = append(chain, m[1]+":"+m[2])
			continue
		}
		if m := reLine.FindStringSubmatch(l); m != nil {
			file = m[1]
			line, _ = strconv.Atoi(m[2])
			continue
		}
		m := reInsn.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		inl := chain
		chain = nil
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		insns[addr] = m[2]
		// aarch64's adrp is annotated with the first symbol on its
		// page, whatever the pair goes on to load (adrpUses).
		if isPLT(sect) || strings.HasPrefix(m[2], "adrp") {
			continue
		}
		for _, a := range reAnnot.FindAllStringSubmatch(m[2], -1) {
			name, ver, _ := strings.Cut(a[1], "@")
			if !names[name] || ver == "" {
				continue
			}
			// objdump names an address after the symbol before
			// it: past a PLT entry's start, or past an object's
			// size, it is not that symbol's.
			if a[2] != "" {
				off, err := strconv.ParseInt(strings.Replace(a[2], "0x", "", 1), 16, 64)
				if err != nil || ver == "plt" || off < 0 || uint64(off) >= sizes[name] {
					continue
				}
			}
			// crtstuff's __TMC_END__ is the address of the first
			// copied object: not a use of it (see useful).
			if fn == "deregister_tm_clones" || fn == "register_tm_clones" {
				continue
			}
			// objdump writes a file as DWARF joins it
			// (lib/.//dictBuilder/zdict.c); a site's is
			// cleaned, as debug/dwarf cleans it.
			uses = append(uses, expected{addr, name, fn, fnAddr, cleanPath(file), line, m[2], cleanChain(inl)})
		}
	}
	return uses, plt, insns
}

// relocsOf maps every dynamic relocation objdump -R lists to the name
// of its symbol, and each COPY relocation's address to its name.
func relocsOf(t *testing.T, objdump, path string) (all, copies map[uint64]string) {
	all, copies = map[uint64]string{}, map[uint64]string{}
	for _, l := range strings.Split(run(t, objdump, "-R", path), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			continue
		}
		name, _, _ := strings.Cut(f[2], "@")
		all[a] = name
		if strings.HasSuffix(f[1], "_COPY") {
			copies[a] = name
		}
	}
	return all, copies
}

var reEA = regexp.MustCompile(`# ([0-9a-f]+) <`)

// viaReloc reports whether the instruction text addresses (as objdump's
// comment computes it) a relocated word or a copied object of name.
func viaReloc(text, name string, all, copies map[uint64]string, sizes map[string]uint64) bool {
	m := reEA.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	ea, _ := strconv.ParseUint(m[1], 16, 64)
	if all[ea] == name {
		return true
	}
	for a, n := range copies {
		if n == name && ea >= a && ea < a+max(sizes[name], 1) {
			return true
		}
	}
	return false
}

// dataWords lists the data relocations objdump -R shows for names, by
// address: the Data sites.
func dataWords(t *testing.T, objdump, path string, names map[string]bool) map[uint64]string {
	out := run(t, objdump, "-R", path)
	words := map[uint64]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || !(strings.HasSuffix(f[1], "_64") || strings.HasSuffix(f[1], "_ABS64")) {
			continue
		}
		name, _, _ := strings.Cut(f[2], "@")
		if !names[name] {
			continue
		}
		a, err := strconv.ParseUint(f[0], 16, 64)
		if err == nil {
			words[a] = name
		}
	}
	return words
}

// pltSymbol is the symbol the PLT entry a call or jump goes to loads
// its slot of, as objdump annotates the entry's indirect jmp.
func pltSymbol(insns map[uint64]string, text string) string {
	m := reTarget.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	a, _ := strconv.ParseUint(m[1], 16, 64)
	for i := a; i < a+16; i++ {
		if in, ok := insns[i]; ok && strings.Contains(in, "jmp") && strings.Contains(in, "*") {
			if an := reAnnot.FindStringSubmatch(in); an != nil && an[2] == "" {
				return nameOf(an[1])
			}
			return ""
		}
	}
	return ""
}

// symAddrs are the addresses of path's defined symbols, by name (a
// local name such as Go's "runtime/cgo(.text)" names many).
func symAddrs(t *testing.T, path string) map[string][]uint64 {
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]uint64{}
	for _, get := range []func() ([]elfx.Symbol, error){f.Symbols, f.StaticSymbols} {
		syms, err := get()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if !s.Undefined() && s.Value != 0 {
				out[s.Name] = append(out[s.Name], s.Value)
			}
		}
	}
	return out
}

// symSizes are the sizes of path's dynamic symbols, by name.
func symSizes(t *testing.T, path string) map[string]uint64 {
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, s := range syms {
		out[s.Name] = max(out[s.Name], s.Size)
	}
	return out
}

// callLines is s's inlined-from chain as objdump writes it.
func callLines(s Site) []string {
	var out []string
	for _, in := range s.Inlined {
		out = append(out, fmt.Sprintf("%s:%d", in.CallFile, in.CallLine))
	}
	return out
}

func nameOf(key string) string { n, _, _ := strings.Cut(key, "@"); return n }

// checkTruth holds Find's sites of every import of path to objdump's
// view of the same file: each use objdump shows is a site, with the
// same function and file:line, and each site is a use objdump shows (a
// data word objdump -R lists, or an immediate PLT address objdump does
// not name).
//
// alt, when set, is the judge where objdump's line is not the site's:
// binutils 2.40 reads no line of the C code in a Go program linked by
// gcc, and names the generated file, not the #line one, for some rows
// of a Bison parser's DWARF 5 table (jq's parser.y), where readelf's own
// decoder reads both as the site does. The site's line must be alt's.
func checkTruth(t *testing.T, objdump, path string, res *Result, want []string, alt *lineRows) (shown, sites int) {
	t.Helper()
	names := map[string]bool{}
	for _, w := range want {
		names[nameOf(w)] = true
	}
	uses, plt, insns := objdumpUses(t, objdump, path, names)
	words := dataWords(t, objdump, path, names)
	all, copies := relocsOf(t, objdump, path)
	sizes := symSizes(t, path)
	addrs := symAddrs(t, path)
	got := map[uint64]Site{}
	for _, s := range res.Sites {
		got[s.Address] = s
	}
	if len(uses) == 0 {
		t.Fatalf("%s: objdump shows no use of %v", path, want)
	}
	inlined := 0
	for _, u := range uses {
		s, ok := got[u.addr]
		switch {
		case !ok:
			t.Errorf("%s: missing %#x %s in %s (%s:%d): %s", path, u.addr, u.name, u.function, u.file, u.line, u.text)
		case nameOf(s.Symbol) != u.name:
			t.Errorf("%s: %#x: site of %s, objdump says %s", path, u.addr, s.Symbol, u.name)
		case s.Function != u.function && !(s.Function == "" && (strings.Contains(u.function, "@") || strings.HasPrefix(u.function, "."))) &&
			!slices.Contains(addrs[s.Function], u.fnAddr):
			// Aliases (a C++ D1/D2 pair, Go's section symbols over
			// cgo's functions) are one function: any of their names
			// is right.
			t.Errorf("%s: %#x %s: function %q, objdump says %q", path, u.addr, u.name, s.Function, u.function)
		case s.File != u.file || s.Line != u.line:
			if alt != nil {
				if f, l := alt.at(u.addr); l == s.Line && f == filepath.Base(s.File) {
					alt.used++
					t.Logf("%s: %#x %s in %s: %s:%d, objdump says %q:%d, readelf agrees with the site", path, u.addr, u.name, u.function, s.File, s.Line, u.file, u.line)
					break
				}
			}
			t.Errorf("%s: %#x %s in %s: %s:%d, objdump says %s:%d", path, u.addr, u.name, u.function, s.File, s.Line, u.file, u.line)
		case fmt.Sprint(callLines(s)) != fmt.Sprint(u.inlined):
			t.Errorf("%s: %#x %s in %s: inlined at %v, objdump says %v", path, u.addr, u.name, u.function, callLines(s), u.inlined)
		}
		if len(u.inlined) > 0 {
			inlined++
		}
		delete(got, u.addr)
	}
	t.Logf("%s: %d uses objdump shows (%d inlined), %d data words, %d sites", filepath.Base(path), len(uses), inlined, len(words), len(res.Sites))
	for a, s := range got {
		switch {
		case s.Kind == Data && words[a] == nameOf(s.Symbol):
		case s.Kind == Address && strings.Contains(insns[a], fmt.Sprintf("$0x%x", plt[nameOf(s.Symbol)])):
		case (s.Kind == GOT || s.Kind == Pointer || s.Kind == Copy) && viaReloc(insns[a], nameOf(s.Symbol), all, copies, sizes):
			// A slot or copy objdump names after a nearer symbol
			// (a stripped file): its relocation names it.
		case s.Kind == Call && pltSymbol(insns, insns[a]) == nameOf(s.Symbol):
			// A PLT entry objdump leaves unnamed (.plt.got past
			// its first): its jmp names the slot.
		default:
			t.Errorf("%s: site objdump does not show: %#x %s %s %s", path, a, s.Symbol, s.Kind, s)
		}
	}
	for a, name := range words {
		if s, ok := got[a]; !ok || s.Kind != Data {
			t.Errorf("%s: data word %#x for %s not reported", path, a, name)
		}
	}
	return len(uses) + len(words), len(res.Sites)
}

func TestTruthObjdump(t *testing.T) {
	objdump := tool(t, "objdump")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conv.h"), []byte(truthHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := fixture.Compiler(t, "gcc")
	for _, tc := range []struct {
		name string
		cxx  bool
		args []string
	}{
		{"plt", false, nil},
		{"noplt", false, []string{"-fno-plt"}},
		{"nopie", false, []string{"-no-pie", "-fno-pie"}},
		{"nopie-noplt", false, []string{"-no-pie", "-fno-pie", "-fno-plt"}},
		{"ibt", false, []string{"-fcf-protection", "-Wl,-z,ibtplt"}},
		{"shared", false, []string{"-shared", "-fPIC"}},
		{"cxx", true, nil},
		{"cxx-noplt", true, []string{"-fno-plt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out string
			args := append([]string{"-g", "-O2", "-I", dir}, tc.args...)
			if tc.cxx {
				cxx := fixture.Compiler(t, "g++")
				out = fixture.Build(t, cxx, dir, tc.name+".cc", truthCXX, tc.name, args...)
			} else {
				if !fixture.Supports(cc, tc.args...) {
					t.Skipf("%s does not take %v", cc, tc.args)
				}
				out = fixture.Build(t, cc, dir, tc.name+".c", truthC, tc.name, args...)
			}
			want := imports(t, out)
			res := find(t, out, want, Options{})
			if !res.Lines {
				t.Fatalf("no lines read: %v", res.Notes)
			}
			checkTruth(t, objdump, out, res, want, nil)
			checkSplit(t, out, want, res)
		})
	}
}

// checkSplit moves path's DWARF to a separate file, as distributions
// ship it, and finds it through .gnu_debuglink and by build ID: the
// sites must be the same.
func checkSplit(t *testing.T, path string, want []string, full *Result) {
	objcopy := tool(t, "objcopy")
	dir := t.TempDir()
	bin := filepath.Join(dir, filepath.Base(path))
	dbg := bin + ".debug"
	run(t, objcopy, "--only-keep-debug", path, dbg)
	run(t, objcopy, "--strip-debug", "--add-gnu-debuglink="+dbg, path, bin)
	res := find(t, bin, want, Options{})
	if res.DebugFile != dbg {
		t.Errorf("debuglink: debug file %q, want %q (notes %v)", res.DebugFile, dbg, res.Notes)
	}
	sameSites(t, "debuglink", full, res)

	// By build ID only: the debug file under DIR/.build-id, the binary
	// elsewhere without a link.
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id := f.BuildID()
	f.Close()
	if len(id) < 2 {
		t.Skip("no build ID")
	}
	root := filepath.Join(dir, "debugroot")
	h := fmt.Sprintf("%x", id)
	bid := filepath.Join(root, ".build-id", h[:2], h[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(bid), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dbg, bid); err != nil {
		t.Fatal(err)
	}
	stripped := filepath.Join(dir, "nolink")
	run(t, objcopy, "--strip-debug", "--remove-section=.gnu_debuglink", path, stripped)
	if res := find(t, stripped, want, Options{}); res.Lines {
		t.Errorf("lines found without a debug dir: %s", res.DebugFile)
	}
	res = find(t, stripped, want, Options{DebugDirs: []string{root}})
	if res.DebugFile != bid {
		t.Errorf("build ID: debug file %q, want %q", res.DebugFile, bid)
	}
	sameSites(t, "build-id", full, res)
}

func sameSites(t *testing.T, how string, want, got *Result) {
	t.Helper()
	a, b := fmt.Sprint(want.Sites), fmt.Sprint(got.Sites)
	if a != b {
		t.Errorf("%s: sites differ from the unsplit file's:\n got %s\nwant %s", how, b, a)
	}
}

// TestTruthARM64 holds aarch64 code to objdump's view: bl to PLT entries
// as objdump names them, and adrp+ldr pairs to the data words and GOT
// slots objdump -R lists.
func TestTruthARM64(t *testing.T) {
	cc := tool(t, "aarch64-linux-gnu-gcc")
	objdump := tool(t, "aarch64-linux-gnu-objdump")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conv.h"), []byte(truthHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"plt", nil},
		{"noplt", []string{"-fno-plt"}},
		{"shared", []string{"-shared", "-fPIC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := fixture.Build(t, cc, dir, tc.name+".c", truthC, tc.name, append([]string{"-g", "-O2", "-I", dir}, tc.args...)...)
			want := imports(t, out)
			res := find(t, out, want, Options{})
			names := map[string]bool{}
			for _, w := range want {
				names[nameOf(w)] = true
			}
			uses, _, _ := objdumpUses(t, objdump, out, names)
			uses = append(uses, adrpUses(t, objdump, out, names)...)
			got := map[uint64]Site{}
			for _, s := range res.Sites {
				got[s.Address] = s
			}
			if len(uses) == 0 {
				t.Fatal("objdump shows no use")
			}
			for _, u := range uses {
				s, ok := got[u.addr]
				if !ok || nameOf(s.Symbol) != u.name || s.Function != u.function || s.File != u.file || s.Line != u.line {
					t.Errorf("%#x %s in %s (%s:%d): got %+v", u.addr, u.name, u.function, u.file, u.line, s)
				}
			}
		})
	}
}

var (
	reADRP = regexp.MustCompile(`^adrp\s+(x\d+), ([0-9a-f]+)`)
	reLDR  = regexp.MustCompile(`^ldr\s+x\d+, \[(x\d+), #(\d+)\]`)
)

// adrpUses pairs objdump's adrp and ldr lines, within a function, into
// loads of the GOT slots and data words objdump -R names.
func adrpUses(t *testing.T, objdump, path string, names map[string]bool) []expected {
	slots := map[uint64]string{}
	for _, l := range strings.Split(run(t, objdump, "-R", path), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[1] == "R_AARCH64_JUMP_SLOT" {
			continue
		}
		if name, _, _ := strings.Cut(f[2], "@"); names[name] {
			a, _ := strconv.ParseUint(f[0], 16, 64)
			slots[a] = name
		}
	}
	out := run(t, objdump, "-d", "-l", "--no-show-raw-insn", path)
	var uses []expected
	var fn, file, sect string
	line := 0
	page := map[string]uint64{}
	for _, l := range strings.Split(out, "\n") {
		if m := reSect.FindStringSubmatch(l); m != nil {
			sect = m[1]
		} else if m := reFunc.FindStringSubmatch(l); m != nil {
			fn, file, line, page = m[1], "", 0, map[string]uint64{}
		} else if m := reLine.FindStringSubmatch(l); m != nil {
			file = m[1]
			line, _ = strconv.Atoi(m[2])
		} else if m := reInsn.FindStringSubmatch(l); m != nil && !isPLT(sect) {
			addr, _ := strconv.ParseUint(m[1], 16, 64)
			if a := reADRP.FindStringSubmatch(m[2]); a != nil {
				page[a[1]], _ = strconv.ParseUint(a[2], 16, 64)
			} else if a := reLDR.FindStringSubmatch(m[2]); a != nil {
				p, ok := page[a[1]]
				off, _ := strconv.ParseUint(a[2], 10, 64)
				if name := slots[p+off]; ok && name != "" && fn != "deregister_tm_clones" && fn != "register_tm_clones" {
					uses = append(uses, expected{addr, name, fn, 0, file, line, m[2], nil})
				}
			}
		}
	}
	return uses
}

// TestTruthCorpus holds every ELF file under the paths listed in
// ABIFLOOR_SITES_CORPUS (separated by ':') to objdump's view, for every
// versioned symbol each imports: real programs, built by real build
// systems (the cc corpus, /usr/bin).
func TestTruthCorpus(t *testing.T) {
	list := os.Getenv("ABIFLOOR_SITES_CORPUS")
	if list == "" {
		t.Skip("set ABIFLOOR_SITES_CORPUS to paths of ELF files or trees")
	}
	objdump := tool(t, "objdump")
	n := 0
	for _, root := range strings.Split(list, ":") {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			f, err := elfx.Open(p)
			if err != nil {
				return nil
			}
			ok := f.Dynamic != nil && archOf(f) == archX86
			f.Close()
			if !ok {
				return nil
			}
			want := imports(t, p)
			if len(want) == 0 {
				return nil
			}
			n++
			t.Run(strings.ReplaceAll(strings.TrimPrefix(p, "/"), "/", "_"), func(t *testing.T) {
				checkTruth(t, objdump, p, find(t, p, want, Options{}), want, nil)
			})
			return nil
		})
	}
	if n == 0 {
		t.Fatal("no ELF file in ABIFLOOR_SITES_CORPUS")
	}
}

// lineRows is readelf --debug-dump=decodedline's view of a file: each
// row's address, file name (readelf shows the base) and line.
type lineRows struct {
	rows []lineRow
	used int // uses whose line came from here
}

type lineRow struct {
	addr uint64
	file string
	line int
}

func readelfLines(t *testing.T, path string) *lineRows {
	out := run(t, tool(t, "readelf"), "--debug-dump=decodedline", "-W", path)
	lr := &lineRows{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || !strings.HasPrefix(f[2], "0x") {
			continue
		}
		a, err := strconv.ParseUint(f[2][2:], 16, 64)
		if err != nil {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			n = 0 // the end of a sequence
		}
		lr.rows = append(lr.rows, lineRow{a, filepath.Base(f[0]), n})
	}
	slices.SortStableFunc(lr.rows, func(a, b lineRow) int { return cmp.Compare(a.addr, b.addr) })
	return lr
}

// at is the line of the last row at or below addr.
func (lr *lineRows) at(addr uint64) (string, int) {
	i, _ := slices.BinarySearchFunc(lr.rows, addr+1, func(r lineRow, a uint64) int { return cmp.Compare(r.addr, a) })
	if i == 0 {
		return "", 0
	}
	r := lr.rows[i-1]
	return r.file, r.line
}

func cleanPath(p string) string {
	if p == "" {
		return p
	}
	return filepath.Clean(p)
}

// cleanChain cleans the files of objdump's "FILE:LINE" chain.
func cleanChain(chain []string) []string {
	var out []string
	for _, c := range chain {
		i := strings.LastIndexByte(c, ':')
		out = append(out, cleanPath(c[:i])+c[i:])
	}
	return out
}
