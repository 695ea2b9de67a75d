package artefact

import (
	"context"
	"io"
)

// WalkReaderAt is Walk on an artefact held by r (size bytes).
func WalkReaderAt(ctx context.Context, r io.ReaderAt, size int64, opt Options, fn func(*Member) error) error {
	opt.fill()
	return outer("", retrying(ctx, opt, fn, size, nil, func(w *walker) error { return w.file(w.counting(r), size) }))
}
