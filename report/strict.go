package report

// StrictLevel is the annotation level of a finding that --strict (or a
// caller's equivalent) turns from a warning into a failure: "error" when
// it fails the run, "warning" when not.
func StrictLevel(strict bool) string {
	if strict {
		return "error"
	}
	return "warning"
}

// StrictLabel is the text label of such a finding: "error:" in red when it
// fails the run, "warning:" in yellow when not.
func StrictLabel(p Painter, strict bool) string {
	if strict {
		return p.Red("error:")
	}
	return p.Yellow("warning:")
}
