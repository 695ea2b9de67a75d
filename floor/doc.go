// Package floor computes the "floor" of an ELF file: for each symbol
// version namespace (GLIBC, GLIBCXX, CXXABI, GCC, OPENSSL, ...), the
// highest version the file requires. A binary loads on a system only when
// every floor is at or below what the system's libraries define, so
// comparing floors with a target's limits (the embedded targets.json) tells
// whether it will load there, before it ships.
//
// The floor comes from the version-need table alone, which costs a few
// small reads per file. The symbols behind a floor (memcpy@GLIBC_2.14) come
// from the dynamic symbol table and are read only when asked (Why) or when a
// limit is exceeded. Scan runs this over files and trees in parallel.
//
// Check is the gate: it holds every file to Requirements (namespace
// limits, named targets, an image's glibc) and, inside an artefact, to
// what the artefact claims of itself; each violation names its source,
// and the result says which limits checked nothing, whether anything was
// checked at all, and whether the run was complete. A scan whose context
// is cancelled is Incomplete (Result.Err wraps ErrIncomplete): it proves
// nothing, and Check never passes it.
package floor
