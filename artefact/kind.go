package artefact

import "github.com/abifloor/abifloor/internal/input"

// KindOf is the artefact format of path by its content, or ""
// (not an artefact, or not a regular file or directory: FIFOs and
// devices are never opened).
func KindOf(path string) Format {
	if IsLayout(path) {
		return Layout
	}
	in, err := input.Open(path, nil, make([]byte, HeadSize))
	if err != nil {
		return ""
	}
	defer in.Close()
	return Detect(in.Head)
}
