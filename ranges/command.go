package ranges

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/report"
)

// What a command that builds, shows or extends tables needs beyond the
// builder: the output formats, the user's cache, the options a version
// added to a table is built with, and what a build cut short finished.

// Write writes t in format: text, json, go (package goPkg) or html (a
// page titled title).
func Write(w io.Writer, t *Table, format report.Format, goPkg, title string) error {
	switch format {
	case report.JSON:
		return t.WriteJSON(w)
	case "go":
		return WriteGo(w, t, goPkg)
	case "html":
		return WriteHTML(w, t, title)
	}
	return WriteText(w, t)
}

// FormatOf is the format a table file's name says: json, html or go for
// .json, .html/.htm and .go; "" for another.
func FormatOf(path string) string {
	switch filepath.Ext(path) {
	case ".json":
		return "json"
	case ".html", ".htm":
		return "html"
	case ".go":
		return "go"
	}
	return ""
}

// UserCache opens the cache of ABIs under the user's cache root
// (ranges/ under $ABIFLOOR_CACHE or ~/.cache/abifloor). The root is
// checked as cc's is: a root another user can write to could hold a
// planted, self-consistent entry; warning says what was found wrong but
// tolerable. The ABIs live in a cache of their own under the root, with
// package cache's locks, manifests and checks.
func UserCache(getenv func(string) string) (c *cache.Cache, warning string, err error) {
	dir, err := cache.DefaultDir(getenv)
	if err != nil {
		return nil, "", err
	}
	root, warning, err := cache.OpenPrivate(dir)
	if err != nil {
		return nil, "", err
	}
	c, err = cache.Open(filepath.Join(root.Dir, "ranges"))
	return c, warning, err
}

// AddOptions are the options a version of input in is built with to be
// added to t (whose file is path): given (the command line's) when set,
// else those t recorded, which must name nothing outside each version's
// tree. A data file never chooses the program to run: the compiler and
// target are always given's, and note says when they differ from what
// t recorded.
func AddOptions(t *Table, path string, in Input, given Options, set bool) (opt Options, note string, err error) {
	switch {
	case set:
		opt = given
	case t.Options != nil:
		opt = Options(*t.Options)
		if err := opt.Check(); err != nil {
			return opt, "", fmt.Errorf("%s: options: %v", path, err)
		}
	default:
		return opt, "", fmt.Errorf("%s holds headers, and neither the table nor the flags say which headers and types to read", in)
	}
	recorded := Options{}
	if t.Options != nil {
		recorded = Options(*t.Options)
	}
	opt.CC, opt.Arch = given.CC, given.Arch
	if recorded.CC != opt.CC || recorded.Arch != opt.Arch {
		note = fmt.Sprintf("the table was built with compiler %s; this version is built with %s",
			recorded.compilerName(), opt.compilerName())
	}
	return opt, note, nil
}

// compilerName says which compiler o chooses, for messages.
func (o Options) compilerName() string {
	name := o.CC
	if name == "" {
		name = "cc (the default)"
	}
	if o.Arch != "" {
		name += " for " + o.Arch
	}
	return report.Clean(name)
}

// Finished are the results of a build cut short whose versions it
// finished: those its cancellation did not stop.
func Finished(res []Result) []Result {
	var kept []Result
	for _, r := range res {
		if r.Err == nil || !errors.Is(r.Err, context.Canceled) && !errors.Is(r.Err, context.DeadlineExceeded) {
			kept = append(kept, r)
		}
	}
	return kept
}
