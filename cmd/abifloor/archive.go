package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// notArchives returns an error for the first path argument that is an
// archive (wheel, zip, tar, ar/.deb, rpm, or a compressed stream):
// abifloor does not read archives yet, and walking past one would check
// nothing and pass ("0 ELF files"). Reading artefacts in place replaces
// this function.
func notArchives(paths []string) error {
	for _, p := range paths {
		if kind := archiveKind(p); kind != "" {
			return fmt.Errorf("%s: a %s archive: archives are not read yet; unpack it and name the directory", p, kind)
		}
	}
	return nil
}

// archiveKind names the archive format of the regular file at path by its
// magic bytes, or returns "" (not an archive, or not a regular file: FIFOs
// and devices are never opened).
func archiveKind(path string) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return archiveMagic(head[:n])
}

func archiveMagic(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("PK\x03\x04")), bytes.HasPrefix(b, []byte("PK\x05\x06")):
		return "zip"
	case bytes.HasPrefix(b, []byte("!<arch>\n")):
		return "ar"
	case bytes.HasPrefix(b, []byte{0xed, 0xab, 0xee, 0xdb}):
		return "rpm"
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "gzip"
	case bytes.HasPrefix(b, []byte("\xfd7zXZ\x00")):
		return "xz"
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	case bytes.HasPrefix(b, []byte("BZh")) && len(b) > 3 && b[3] >= '1' && b[3] <= '9':
		return "bzip2"
	case len(b) >= 262 && bytes.Equal(b[257:262], []byte("ustar")):
		return "tar"
	}
	return ""
}
