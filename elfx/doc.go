// Package elfx reads the parts of an ELF file that decide whether it will
// load: the header, program headers, the dynamic section, symbol versions
// (needed and defined), the dynamic symbol table and relocations.
//
// It is built for scanning thousands of files. Opening a File costs one
// read of the first 4 KiB plus one of PT_DYNAMIC; everything else is read
// lazily, through a small chunk cache, only when a method asks for it. It
// never reads a whole file, and every count and offset a header claims is
// checked against the file size before anything is allocated, so a hostile
// file costs at most its own size in memory and yields a *FormatError
// instead of a panic.
//
// Addresses in the dynamic section are mapped to file offsets through the
// PT_LOAD segments; files without program headers (or without PT_DYNAMIC)
// fall back to section headers.
package elfx
