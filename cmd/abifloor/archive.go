package main

import (
	"fmt"

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
		kind := artefact.KindOf(p)
		if kind == "" {
			continue
		}
		hint := ""
		if kind == artefact.Layout || kind == artefact.Tar {
			hint = " (a container image is audited with --image " + p + ")"
		}
		return fmt.Errorf("%s: a %s artefact: bind reads a package only as installed: unpack it as it installs and name the directory%s", p, kind, hint)
	}
	return nil
}
