package main

import (
	"fmt"
	"io"
	"os"

	"github.com/abifloor/abifloor/artefact"
)

// notArchives returns an error for the first path argument that is an
// artefact (a wheel, a tarball, a .deb, an rpm, an image): scan, check
// and fit read them in place (package artefact), bind reads an image with
// --image but not a package (its libraries are the system's it lands on,
// so there is nothing to resolve them against), and walking past one would
// check nothing and pass.
func notArchives(paths []string) error {
	for _, p := range paths {
		if kind := archiveKind(p); kind != "" {
			return fmt.Errorf("%s: a %s artefact: bind reads a package only as installed: unpack it as it installs and name the directory", p, kind)
		}
	}
	return nil
}

// archiveKind names the artefact format of path by its content, or
// returns "" (not an artefact, or not a regular file or directory: FIFOs
// and devices are never opened).
func archiveKind(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		if artefact.IsLayout(path) {
			return string(artefact.Layout)
		}
		return ""
	}
	if !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, artefact.HeadSize)
	n, _ := io.ReadFull(f, head)
	return string(artefact.Detect(head[:n]))
}
