package elfx

import "debug/elf"

// VerNeed is one library entry of the version-need table (DT_VERNEED):
// the versions this file requires from that library.
type VerNeed struct {
	File     string
	Versions []VerNeedAux
}

// VerNeedAux is one required version.
type VerNeedAux struct {
	Name  string
	Hash  uint32
	Flags uint16 // VER_FLG_WEAK (2): the loader only warns when it is missing
	Index uint16 // the versym index symbols use to refer to it
}

// Weak reports whether the requirement is weak (VER_FLG_WEAK).
func (a VerNeedAux) Weak() bool { return a.Flags&verFlgWeak != 0 }

// VerDef is one version this file defines (DT_VERDEF).
type VerDef struct {
	Index uint16
	Flags uint16 // VER_FLG_BASE (1) marks the file's own name
	Name  string
	// Parents are the versions this one inherits from (vd_cnt > 1).
	Parents []string
}

const (
	verFlgBase = 1
	verFlgWeak = 2
)

// Base reports whether d is the base definition (the file's own name).
func (d VerDef) Base() bool { return d.Flags&verFlgBase != 0 }

// tableOffset maps the address stored under tag to a file offset.
func (f *File) tableOffset(tag elf.DynTag) (int64, bool, error) {
	d := f.Dynamic
	if d == nil {
		return 0, false, nil
	}
	addr, ok := d.Tag(tag)
	if !ok {
		return 0, false, nil
	}
	off, ok := f.offset(addr)
	if !ok {
		return 0, false, formatErr(d.offset, "%v address %#x is not in any loaded segment", tag, addr)
	}
	return off, true, nil
}

// maxChain bounds a version chain walk: each entry takes at least 8 bytes,
// so a longer walk must be looping.
func (f *File) maxChain() int64 { return f.rd.size/8 + 1 }

// VersionNeeds returns the version-need table: for each library, the
// version names required from it. This is what the floor is made of, and
// it costs a few small reads.
func (f *File) VersionNeeds() ([]VerNeed, error) {
	if f.needsOK {
		return f.needs, f.needsErr
	}
	f.needsOK = true
	f.needs, f.needsErr = f.readVersionNeeds()
	return f.needs, f.needsErr
}

func (f *File) readVersionNeeds() ([]VerNeed, error) {
	f.rd.intern = true
	defer func() { f.rd.intern = false }()
	off, ok, err := f.tableOffset(elf.DT_VERNEED)
	if err != nil || !ok {
		return nil, err
	}
	num, _ := f.Dynamic.Tag(elf.DT_VERNEEDNUM)
	count := int64(num)
	if count <= 0 || count > f.maxChain() {
		return nil, formatErr(off, "DT_VERNEEDNUM %d is impossible for a %d-byte file", count, f.rd.size)
	}
	// Sized from the counts, bounded by what the file can hold: each
	// entry takes 16 bytes.
	needs := make([]VerNeed, 0, min(count, 64))
	var used nameBudget
	steps := f.maxChain()
	for i := int64(0); i < count; i++ {
		e, err := f.rd.at(off, 16)
		if err != nil {
			return nil, formatErr(off, "version need entry %d past end of file", i)
		}
		cnt := int64(f.bo.Uint16(e[2:]))
		file, aux, next := f.bo.Uint32(e[4:]), int64(f.bo.Uint32(e[8:])), int64(f.bo.Uint32(e[12:]))
		lib, err := f.dynString(uint64(file), &used)
		if err != nil {
			return nil, err
		}
		n := VerNeed{File: lib}
		if cnt > 0 {
			n.Versions = make([]VerNeedAux, 0, min(cnt, 32))
		}
		aoff := off + aux
		for j := int64(0); j < cnt; j++ {
			if steps--; steps < 0 {
				return nil, formatErr(aoff, "version need chain loops")
			}
			a, err := f.rd.at(aoff, 16)
			if err != nil {
				return nil, formatErr(aoff, "version need aux entry past end of file")
			}
			v := VerNeedAux{Hash: f.bo.Uint32(a), Flags: f.bo.Uint16(a[4:]), Index: f.bo.Uint16(a[6:])}
			name, anext := f.bo.Uint32(a[8:]), int64(f.bo.Uint32(a[12:]))
			if v.Name, err = f.dynString(uint64(name), &used); err != nil {
				return nil, err
			}
			n.Versions = append(n.Versions, v)
			if anext == 0 {
				break
			}
			aoff += anext
		}
		needs = append(needs, n)
		if next == 0 {
			break
		}
		if steps--; steps < 0 {
			return nil, formatErr(off, "version need chain loops")
		}
		off += next
	}
	return needs, nil
}

// VersionDefs returns the versions this file defines (DT_VERDEF).
func (f *File) VersionDefs() ([]VerDef, error) {
	if f.defsOK {
		return f.defs, f.defsErr
	}
	f.defsOK = true
	f.defs, f.defsErr = f.readVersionDefs()
	return f.defs, f.defsErr
}

func (f *File) readVersionDefs() ([]VerDef, error) {
	off, ok, err := f.tableOffset(elf.DT_VERDEF)
	if err != nil || !ok {
		return nil, err
	}
	num, _ := f.Dynamic.Tag(elf.DT_VERDEFNUM)
	count := int64(num)
	if count <= 0 || count > f.maxChain() {
		return nil, formatErr(off, "DT_VERDEFNUM %d is impossible for a %d-byte file", count, f.rd.size)
	}
	var defs []VerDef
	var used nameBudget
	steps := f.maxChain()
	for i := int64(0); i < count; i++ {
		e, err := f.rd.at(off, 20)
		if err != nil {
			return nil, formatErr(off, "version definition %d past end of file", i)
		}
		d := VerDef{Flags: f.bo.Uint16(e[2:]), Index: f.bo.Uint16(e[4:])}
		cnt := int64(f.bo.Uint16(e[6:]))
		aux, next := int64(f.bo.Uint32(e[12:])), int64(f.bo.Uint32(e[16:]))
		aoff := off + aux
		for j := int64(0); j < cnt; j++ {
			if steps--; steps < 0 {
				return nil, formatErr(aoff, "version definition chain loops")
			}
			a, err := f.rd.at(aoff, 8)
			if err != nil {
				return nil, formatErr(aoff, "version definition aux entry past end of file")
			}
			name, err := f.dynString(uint64(f.bo.Uint32(a)), &used)
			if err != nil {
				return nil, err
			}
			if j == 0 {
				d.Name = name
			} else {
				d.Parents = append(d.Parents, name)
			}
			anext := int64(f.bo.Uint32(a[4:]))
			if anext == 0 {
				break
			}
			aoff += anext
		}
		defs = append(defs, d)
		if next == 0 {
			break
		}
		if steps--; steps < 0 {
			return nil, formatErr(off, "version definition chain loops")
		}
		off += next
	}
	return defs, nil
}
