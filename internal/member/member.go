// Package member builds and reads the names of artefact members
// ("pkg.deb!/usr/lib/x.so"). It depends on the standard library's path
// and strings only, so a package that writes reports can read the names
// without importing the artefact readers; package artefact exports the
// same Join and Split.
package member

import (
	"path"
	"strings"
)

// Join names member (a "/"-rooted member name, "/usr/lib/x.so") of the
// artefact named a: "a!/usr/lib/x.so". A member of a nested artefact is
// Join(Join(a, "/inner.tgz"), "/lib/x.so"): "a!/inner.tgz!/lib/x.so".
func Join(a, member string) string {
	if !strings.HasPrefix(member, "/") {
		member = "/" + member
	}
	return a + "!" + member
}

// Split reads a name Join made back: it tries each "!/" from the left and
// returns the first split whose artefact part isArtefact accepts (a
// file's path may itself hold "!/"), with the member cleaned
// ("/inner.tgz!/lib/x.so" for a nested member). ok is false when no
// split is accepted.
func Split(name string, isArtefact func(a string) bool) (a, member string, ok bool) {
	for i := strings.Index(name, "!/"); i >= 0; {
		if isArtefact(name[:i]) {
			return name[:i], path.Clean(name[i+1:]), true
		}
		j := strings.Index(name[i+2:], "!/")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return "", "", false
}
