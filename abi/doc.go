// Package abi models the binary interface of a native library as plain Go
// data and reads it from ELF files (dynamic symbols plus DWARF types) and
// from C header trees (compiled once with the system C compiler).
//
// An ABI is a list of exported symbols (name, version, default or not,
// binding, kind, size and, with debug info, a function signature or variable
// type) and a table of named types keyed by their C spelling ("struct foo",
// "foo_t", "int"). Types refer to each other by that key ({"ref": "struct
// foo"}), which is how self-referential and mutually recursive types stay
// finite; anonymous aggregates, pointers, arrays, qualifiers and function
// types are written inline. Only types reachable from exported symbols (or
// from the types asked for with Headers) are kept.
//
// To use it: Load a file (ELF or ABI JSON) or compile a header tree with
// Headers, compare two ABIs with package abidiff, or key caches and range
// tables with (*ABI).Fingerprint. The JSON form is canonical: the same ABI
// always encodes to the same bytes, so a fingerprint is a sha256 of it.
// docs/abi-json.md documents the schema. An ABI is plain data that no
// method changes, so one value may be read from many goroutines.
//
// Dynamic symbols are read with package elfx, by the loader's rule of what
// a library exports (elfx.Symbol.Exported), the same rule bind uses; DWARF
// with debug/dwarf or, for the common forms, straight from the section
// bytes. Malformed input is data: every reader returns an error naming the
// file and the problem.
package abi
