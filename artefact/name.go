package artefact

import "github.com/abifloor/abifloor/internal/member"

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
