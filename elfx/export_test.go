package elfx

// Test-only views of a File: the tests count reads and list every
// relocation; the program asks for neither.

// Reads is the number of read calls issued so far.
func (f *File) Reads() int { return f.rd.reads }

// Relocs returns every dynamic relocation: DT_RELA or DT_REL, then the
// PLT relocations of DT_JMPREL. A PLT table that DT_RELASZ also covers is
// returned once, as PLT.
func (f *File) Relocs() ([]Reloc, error) { return f.relocs(false) }
