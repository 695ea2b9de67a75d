// Package abi models the binary interface of a native library as plain Go
// data: the model alone, with the standard library only, so that a
// program that wants the types pulls no reader (TestModelDeps holds it).
//
// An ABI is a list of exported symbols (name, version, default or not,
// binding, kind, size and, with debug info, a function signature or variable
// type) and a table of named types keyed by their C spelling ("struct foo",
// "foo_t", "int"). Types refer to each other by that key ({"ref": "struct
// foo"}), which is how self-referential and mutually recursive types stay
// finite; anonymous aggregates, pointers, arrays, qualifiers and function
// types are written inline. Only types reachable from exported symbols (or
// from the types asked for from headers) are kept.
//
// The JSON form is canonical: the same ABI always encodes to the same
// bytes, so a fingerprint (Fingerprint) is a sha256 of it. Spell writes a
// type as C does. docs/abi-json.md documents the schema. An ABI is plain
// data that no method changes, so one value may be read from many
// goroutines.
//
// Readers live above the model: package abi/abiread reads ELF files (dynamic
// symbols plus DWARF) and ABI JSON, and compiles C header trees;
// abi/abimember reads a member of an artefact; abi/abitext writes the text
// form. Package abidiff compares two ABIs, and package diff does what
// `abifloor diff` does with files.
package abi
