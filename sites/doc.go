// Package sites finds where an ELF file uses the symbols it imports: the
// calls that reach memcpy@GLIBC_2.14 through its PLT entry, the loads of
// its GOT slot (-fno-plt code, a function whose address is taken), the
// data words relocated to it, and the reads of a program's copy of an
// imported object (stdout). Each place gets its enclosing function and,
// where DWARF line information is present (in the file or in its
// separate debug file), the source file, line and inlined-from chain.
//
// It answers the question a floor leaves open: where in my code is the
// call that raised it. The file's code is decoded with golang.org/x/arch
// on x86-64 and aarch64; on other machines a site is the relocation
// itself, attributed to its enclosing symbol (Result.RelocOnly says so).
//
// Decoding is paid only near candidates: a cheap pass over each
// executable section finds the bytes that could address a wanted PLT
// entry or slot, and only from the nearest function start before each of
// them is code walked, as objdump decodes from each symbol; the walk
// measures instruction lengths from a table checked against x86asm, and
// decodes whole only the instruction that holds a candidate. Code is read
// a window of about a megabyte at a time (windows begin at function
// starts), the windows of a large program on every core. Everything
// read is bounded by the file's size (and compressed debug sections by a
// budget); a hostile file yields an error value, never a panic.
package sites
