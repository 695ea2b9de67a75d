package main

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// abilistsFile writes a small abilists file in either layout: libraries c
// and pthread, versions 2.2.5 and 2.34, targets a and b; pthread_create in
// pthread at 2.2.5 (both targets) and in c at 2.2.5 and 2.34 (target b);
// one object, environ, of size 8.
func abilistsFile(zig011 bool) []byte {
	var b bytes.Buffer
	b.WriteByte(2)
	b.WriteString("c\x00pthread\x00")
	b.Write([]byte{2, 2, 2, 5, 2, 34, 0})
	b.WriteByte(2)
	b.WriteString("a\x00b\x00")
	incl := func(targets uint64, size int, lib byte, last bool, versions ...byte) {
		if zig011 {
			t := uint32(targets)
			if last {
				t |= 1 << 31
			}
			binary.Write(&b, binary.LittleEndian, t)
			if size >= 0 {
				binary.Write(&b, binary.LittleEndian, uint16(size))
			}
		} else {
			b.Write(binary.AppendUvarint(nil, targets))
			if size >= 0 {
				b.Write(binary.AppendUvarint(nil, uint64(size)))
			}
			if last {
				lib |= 0x80
			}
		}
		b.WriteByte(lib)
		versions[len(versions)-1] |= 0x80
		b.Write(versions)
	}
	binary.Write(&b, binary.LittleEndian, uint16(2)) // two function inclusions
	b.WriteString("pthread_create\x00")
	incl(3, -1, 1, false, 0)
	incl(2, -1, 0, true, 0, 1)
	binary.Write(&b, binary.LittleEndian, uint16(1)) // one object inclusion
	b.WriteString("environ\x00")
	incl(3, 8, 0, true, 0)
	return b.Bytes()
}

func TestParseAbilists(t *testing.T) {
	want := &abilists{
		libs:     []string{"c", "pthread"},
		versions: []string{"2.2.5", "2.34"},
		targets:  []string{"a", "b"},
		incls: []inclusion{
			{name: "pthread_create", kind: 'F', targets: 3, lib: 1, versions: []int{0}},
			{name: "pthread_create", kind: 'F', targets: 2, lib: 0, versions: []int{0, 1}},
			{name: "environ", kind: 'O', size: 8, targets: 3, lib: 0, versions: []int{0}},
		},
	}
	for _, zig011 := range []bool{false, true} {
		b := abilistsFile(zig011)
		z, err := parseAbilists(b)
		if err != nil {
			t.Fatalf("zig 0.11 layout %v: %v", zig011, err)
		}
		if !reflect.DeepEqual(z, want) {
			t.Errorf("zig 0.11 layout %v:\n got %+v\nwant %+v", zig011, z, want)
		}
		// Every truncation is an error, never a panic.
		for n := 0; n < len(b); n++ {
			if _, err := parseAbilists(b[:n]); err == nil {
				t.Errorf("zig 0.11 layout %v: %d of %d bytes accepted", zig011, n, len(b))
			}
		}
	}
	bad := abilistsFile(false)
	bad[len(bad)-1] = 0xff // a version index out of range
	if _, err := parseAbilists(bad); err == nil {
		t.Error("bad version index accepted")
	}
}

func FuzzParseAbilists(f *testing.F) {
	f.Add(abilistsFile(false))
	f.Add(abilistsFile(true))
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := parseAbilists(b)
		if err != nil {
			return
		}
		for _, in := range z.incls {
			if in.lib >= len(z.libs) || len(in.versions) == 0 {
				t.Fatalf("bad inclusion %+v", in)
			}
		}
	})
}
