package artefact

import (
	"fmt"
	"unicode/utf8"

	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/internal/member"
)

// Join names member (a "/"-rooted Member.Name, "/usr/lib/x.so") of the
// artefact named a: "a!/usr/lib/x.so". A member of a nested artefact is
// Join(Join(a, "/inner.tgz"), "/lib/x.so"): "a!/inner.tgz!/lib/x.so".
// Walk names members of nested artefacts this way already.
func Join(a, m string) string { return member.Join(a, m) }

// Split reads a name Join made back: it tries each "!/" from the left and
// returns the first split whose artefact part isArtefact accepts (a
// file's path may itself hold "!/"), with the member cleaned
// ("/inner.tgz!/lib/x.so" for a nested member). ok is false when no
// split is accepted.
func Split(name string, isArtefact func(a string) bool) (a, m string, ok bool) {
	return member.Split(name, isArtefact)
}

// pathMax is Linux's PATH_MAX: a path, its NUL included, is at most
// this long, so no file an archive installs has a longer name, nor a link
// a longer target. A tar's PAX record may carry a 1 MB name: fifty of them
// were 48 MB of JUnit, each name repeated in every format.
const pathMax = limits.PathMax

// longName is the error of a name (or a link's target: what) too long
// to be a path, which states its length, not the name.
func longName(what string, n int) error {
	return fmt.Errorf("%w: %s of %d bytes, longer than a path can be (PATH_MAX, %d bytes with its NUL)", ErrFormat, what, n, pathMax)
}

// shownName is how a refused member is named: as the archive spells
// it, or for a name too long to be a path, its first bytes and "...".
func shownName(raw string) string {
	if len(raw) < pathMax {
		return raw
	}
	i := 64
	for i > 0 && !utf8.RuneStart(raw[i]) {
		i--
	}
	return raw[:i] + "..."
}
