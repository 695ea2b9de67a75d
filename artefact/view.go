package artefact

import (
	"context"
	"io/fs"
)

// View is the file system an image's layers make: every visible entry by
// its "/"-rooted path.
type View struct {
	Entries map[string]Entry
	// Env is the environment the image's configuration sets
	// ("PATH=/usr/bin:/bin", ...), nil when it has none or it cannot be
	// read.
	Env []string
}

// Entry is one file, directory or link of a View.
type Entry struct {
	Type fs.FileMode // 0 for a regular file, else fs.ModeDir, fs.ModeSymlink, ...
	Link string      // a link's target
	Size int64
}

func (v *View) add(e tarEntry) {
	v.Entries[e.name] = Entry{Type: e.mode.Type(), Link: e.link, Size: e.size}
}

// WalkView is Walk on an image that also returns the file system its
// layers make (names, kinds, link targets and sizes), in the same one
// pass of the layers: the View is complete once WalkView returns (fn sees
// the members as they come).
func WalkView(ctx context.Context, p string, opt Options, fn func(*Member) error) (*View, error) {
	v := &View{Entries: map[string]Entry{}}
	opt.fill()
	err := walkWith(ctx, p, opt, fn, func(w *walker) { w.view = v })
	return v, err
}
