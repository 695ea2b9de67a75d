package bind

import (
	"debug/elf"
	"fmt"
)

// relocKinds is what the loader of one machine does with PLT relocations.
// Only the lazy types may wait for the first call, and only when the file
// does not ask for BIND_NOW; every other relocation that names a symbol
// (GLOB_DAT, absolute words, COPY, TLS) is resolved before main. A PLT
// relocation of a type outside lazy is rejected while setting up lazy
// binding ("unexpected PLT reloc type"), which is what a PIE linked with
// --unresolved-symbols=ignore-in-object-files leaves behind (type NONE).
type relocKinds struct {
	none uint32
	lazy map[uint32]bool
}

var machineKinds = map[elf.Machine]relocKinds{
	elf.EM_X86_64: {uint32(elf.R_X86_64_NONE), map[uint32]bool{
		uint32(elf.R_X86_64_JMP_SLOT): true, uint32(elf.R_X86_64_IRELATIVE): true, uint32(elf.R_X86_64_TLSDESC): true}},
	elf.EM_AARCH64: {uint32(elf.R_AARCH64_NONE), map[uint32]bool{
		uint32(elf.R_AARCH64_JUMP_SLOT): true, uint32(elf.R_AARCH64_TLSDESC): true, uint32(elf.R_AARCH64_IRELATIVE): true}},
	elf.EM_386: {uint32(elf.R_386_NONE), map[uint32]bool{
		uint32(elf.R_386_JMP_SLOT): true, uint32(elf.R_386_IRELATIVE): true, uint32(elf.R_386_TLS_DESC): true}},
	elf.EM_ARM: {uint32(elf.R_ARM_NONE), map[uint32]bool{
		uint32(elf.R_ARM_JUMP_SLOT): true, uint32(elf.R_ARM_IRELATIVE): true, uint32(rARMTLSDesc): true}},
	elf.EM_PPC64:   {uint32(elf.R_PPC64_NONE), map[uint32]bool{uint32(elf.R_PPC64_JMP_SLOT): true}},
	elf.EM_S390:    {uint32(elf.R_390_NONE), map[uint32]bool{uint32(elf.R_390_JMP_SLOT): true, uint32(r390IRelative): true}},
	elf.EM_RISCV:   {uint32(elf.R_RISCV_NONE), map[uint32]bool{uint32(elf.R_RISCV_JUMP_SLOT): true, uint32(rRISCVIRelative): true}},
	elf.EM_SPARCV9: {uint32(elf.R_SPARC_NONE), map[uint32]bool{uint32(elf.R_SPARC_JMP_SLOT): true}},
}

// Relocation types the psABIs define and debug/elf does not name (it
// calls ARM's 13 by its obsolete name R_ARM_THM_SWI8).
const (
	rARMTLSDesc     elf.R_ARM   = 13 // R_ARM_TLS_DESC
	r390IRelative   elf.R_390   = 61 // R_390_IRELATIVE
	rRISCVIRelative elf.R_RISCV = 58 // R_RISCV_IRELATIVE
)

// copyTypes are the COPY relocations: the executable holds a copy of a
// library's data object, and the loader looks the symbol up in every
// object but the executable, even though the executable defines it.
var copyTypes = map[elf.Machine]uint32{
	elf.EM_X86_64: uint32(elf.R_X86_64_COPY), elf.EM_AARCH64: uint32(elf.R_AARCH64_COPY),
	elf.EM_386: uint32(elf.R_386_COPY), elf.EM_ARM: uint32(elf.R_ARM_COPY),
	elf.EM_PPC64: uint32(elf.R_PPC64_COPY), elf.EM_S390: uint32(elf.R_390_COPY),
	elf.EM_RISCV: uint32(elf.R_RISCV_COPY), elf.EM_SPARCV9: uint32(elf.R_SPARC_COPY),
}

// kindsFor returns the machine's table; unknown machines bind every
// symbol relocation eagerly, the safe assumption.
func kindsFor(m elf.Machine) relocKinds {
	if k, ok := machineKinds[m]; ok {
		return k
	}
	return relocKinds{none: 0, lazy: map[uint32]bool{}}
}

// relocName names relocation type t of machine m as readelf does.
func relocName(m elf.Machine, t uint32) string {
	switch {
	case m == elf.EM_ARM && t == uint32(rARMTLSDesc):
		return "R_ARM_TLS_DESC"
	case m == elf.EM_S390 && t == uint32(r390IRelative):
		return "R_390_IRELATIVE"
	case m == elf.EM_RISCV && t == uint32(rRISCVIRelative):
		return "R_RISCV_IRELATIVE"
	}
	var s fmt.Stringer
	switch m {
	case elf.EM_X86_64:
		s = elf.R_X86_64(t)
	case elf.EM_AARCH64:
		s = elf.R_AARCH64(t)
	case elf.EM_386:
		s = elf.R_386(t)
	case elf.EM_ARM:
		s = elf.R_ARM(t)
	case elf.EM_PPC64:
		s = elf.R_PPC64(t)
	case elf.EM_S390:
		s = elf.R_390(t)
	case elf.EM_RISCV:
		s = elf.R_RISCV(t)
	case elf.EM_SPARCV9:
		s = elf.R_SPARC(t)
	default:
		return fmt.Sprintf("type %d", t)
	}
	n := s.String()
	// Use the x86-64 psABI spelling, which is also what readelf prints.
	if m == elf.EM_X86_64 && n == "R_X86_64_JMP_SLOT" {
		n = "R_X86_64_JUMP_SLOT"
	}
	return n
}
