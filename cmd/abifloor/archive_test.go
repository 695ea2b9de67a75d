package main

import "testing"

func TestArchiveMagic(t *testing.T) {
	tar := make([]byte, 512)
	copy(tar[257:], "ustar\x0000")
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte("PK\x03\x04rest"), "zip"},
		{[]byte("PK\x05\x06"), "zip"},
		{[]byte("!<arch>\ndebian-binary"), "ar"},
		{[]byte{0xed, 0xab, 0xee, 0xdb, 3, 0}, "rpm"},
		{[]byte{0x1f, 0x8b, 8}, "gzip"},
		{[]byte("\xfd7zXZ\x00\x00"), "xz"},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zstd"},
		{[]byte("BZh91AY"), "bzip2"},
		{tar, "tar"},
		{[]byte("\x7fELF\x02\x01\x01"), ""},
		{[]byte("BZh"), ""},
		{[]byte("PK"), ""},
		{nil, ""},
		{make([]byte, 300), ""},
	} {
		if got := archiveMagic(c.in); got != c.want {
			t.Errorf("archiveMagic(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
