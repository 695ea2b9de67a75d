// Package abiread reads the ABI model (package abi) from ELF files
// (dynamic symbols plus DWARF types, from the file, a separate debug file
// or a dwz alternate file), from ABI JSON, and from C header trees
// (compiled once with the system C compiler, Headers).
//
// Dynamic symbols are read with package elfx, by the loader's rule of what
// a library exports (elfx.Symbol.Exported), the same rule bind uses; DWARF
// with debug/dwarf or, for the common forms, straight from the section
// bytes. Malformed input is data: every reader returns an error naming the
// file and the problem, and every allocation is bounded by the input's
// size. The context is checked between compilation units.
package abiread
