package abiread

import (
	"bytes"
	"context"
	"debug/elf"

	"github.com/abifloor/abifloor/abi"
)

// Entry points only the tests and fuzzers drive.

// fromELF reads an ABI from an ELF image in memory, with only the debug
// info it contains. It is the entry point the fuzzer drives.
func fromELF(name string, b []byte) (*abi.ABI, error) {
	a, ef, err := readELF(name, bytes.NewReader(b), int64(len(b)), int64(len(b)), 0)
	if err != nil || !ef.HasDWARF() {
		return a, err
	}
	return a, addTypesFrom(context.Background(), name, a, ef, int64(len(b)), 0, nil, ef.Type == elf.ET_REL)
}

// used is how many bytes the names took, for the tests that hold real
// files to the ratio.
func (b *nameBudget) used() int64 { return b.limit - b.left }
