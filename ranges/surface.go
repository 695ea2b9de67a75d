package ranges

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/abifloor/abifloor/internal/input"
)

// Surface is what a driver's users rely on, as one JSON object
// (DESIGN.md, docs/ranges.md): include directories relative to each
// version's tree, header names or globs relative to them, the types read
// in full, the opaque types (size and alignment only) and the constants.
type Surface struct {
	Include   []string `json:"include"`
	Headers   []string `json:"headers"`
	Types     []string `json:"types"`
	Opaque    []string `json:"opaque"`
	Constants []string `json:"constants"`
}

// MaxSurfaceSize bounds a surface file.
const MaxSurfaceSize = 16 << 20

// ErrSurface is wrapped by every error about a surface file's content.
var ErrSurface = errors.New("not a surface file")

// ReadSurface reads a surface file: one object with only the fields
// above, each a list of non-empty strings.
func ReadSurface(path string) (*Surface, error) {
	in, err := input.Open(path, nil, nil)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if in.Size > MaxSurfaceSize {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrSurface, MaxSurfaceSize)
	}
	b, err := io.ReadAll(io.NewSectionReader(in.FD, 0, MaxSurfaceSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s, err := ParseSurface(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSurface parses the JSON of a surface file.
func ParseSurface(b []byte) (*Surface, error) {
	var s Surface
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSurface, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrSurface)
	}
	for _, l := range []struct {
		name string
		v    []string
	}{{"include", s.Include}, {"headers", s.Headers}, {"types", s.Types}, {"opaque", s.Opaque}, {"constants", s.Constants}} {
		for i, v := range l.v {
			if v == "" {
				return nil, fmt.Errorf("%w: %s[%d] is empty", ErrSurface, l.name, i)
			}
			// Include directories and headers are paths inside each
			// version's tree: a file never names one outside.
			if l.name == "include" || l.name == "headers" {
				if err := treePath(v); err != nil {
					return nil, fmt.Errorf("%w: %s[%d] %q: %v", ErrSurface, l.name, i, v, err)
				}
			}
		}
	}
	return &s, nil
}

// Merge adds the surface to o: the file and the command line are the
// same surface by two means, and a name given by both counts once.
func (o *Options) Merge(s *Surface) {
	add := func(dst *[]string, src []string) {
		seen := map[string]bool{}
		for _, v := range *dst {
			seen[v] = true
		}
		for _, v := range src {
			if !seen[v] {
				seen[v] = true
				*dst = append(*dst, v)
			}
		}
	}
	add(&o.Includes, s.Include)
	add(&o.Headers, s.Headers)
	add(&o.Types, s.Types)
	add(&o.Opaque, s.Opaque)
	add(&o.Consts, s.Constants)
}
