package abiread

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
)

// packSections and unpackSections carry the DWARF sections the builder
// reads as one fuzz input: five little-endian 32-bit lengths, then the
// sections in order.
func packSections(s *sections) []byte {
	parts := [][]byte{s.info, s.abbrev, s.str, s.strOffsets, s.addr}
	var out []byte
	for _, p := range parts {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(p)))
	}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func unpackSections(b []byte) *sections {
	const n = 5
	if len(b) < 4*n {
		return nil
	}
	s := &sections{order: binary.LittleEndian}
	dst := []*[]byte{&s.info, &s.abbrev, &s.str, &s.strOffsets, &s.addr}
	rest := b[4*n:]
	for i := range n {
		l := uint64(binary.LittleEndian.Uint32(b[4*i:]))
		if l > uint64(len(rest)) {
			return nil
		}
		*dst[i], rest = rest[:l:l], rest[l:]
	}
	return s
}

// FuzzTypesOf drives the fast scan and the type builder on arbitrary
// sections, seeded with DWARF 4 and 5 from gcc, DWARF 5 from clang (its
// strx and addrx forms), and the GCC 4.4 shape of
// TestSpecificationNamesDefinition. Each exported name the scan finds is
// looked up as a symbol; nothing may panic or run away.
func FuzzTypesOf(f *testing.F) {
	for _, cc := range [][]string{{"gcc", "-gdwarf-4"}, {"gcc", "-gdwarf-5"}, {"clang", "-gdwarf-5"}, {"g++", "-gdwarf-3", "-x", "c++"}} {
		if !fixture.Have(cc[0]) {
			continue
		}
		out := filepath.Join(f.TempDir(), "lib.so")
		args := append([]string{"-shared", "-fPIC", "-o", out}, cc[1:]...)
		if exec.Command(cc[0], append(args, filepath.Join("testdata", "fix.c"))...).Run() != nil {
			continue
		}
		if ef, err := elfx.Open(out); err == nil {
			if s, err := readSections(ef, DefaultMaxDebugSize); err == nil && len(s.info) < 1<<16 {
				f.Add(packSections(s))
			}
			ef.Close()
		}
		os.Remove(out)
	}
	info, abbrev := gcc44DWARF()
	f.Add(packSections(&sections{info: info, abbrev: abbrev}))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := unpackSections(data)
		if s == nil {
			return
		}
		ix, _, err := fastScan(context.Background(), s, true)
		if err != nil {
			return
		}
		a := &abi.ABI{Types: map[string]*abi.Type{}}
		for n := range ix.funcs {
			a.Symbols = append(a.Symbols, abi.Symbol{Name: n, Kind: abi.SymFunc})
		}
		for n := range ix.vars {
			a.Symbols = append(a.Symbols, abi.Symbol{Name: n, Kind: abi.SymObject})
		}
		if err := typesOf(context.Background(), a, nil, s, binary.LittleEndian, len(data), newNameBudget(s.dwarfBytes(), int64(len(data))), false); err != nil {
			return
		}
		_ = a.Canonical()
	})
}
