package ranges

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/abi"
)

// Two versions whose include trees differ often differ only in files the
// compile never reads (NVIDIA's tags change a .c file under an include
// directory, or a header nothing includes): 22 of the 84 distinct trees
// of its 144 tags from 535 on. A compile's result depends on the tree
// only through what the preprocessor sees: which paths exist (an
// #include's search, __has_include, a header glob; symbolic links steer
// both) and the bytes of the files it reads, which its -MD list names.
// So a version whose tree has the same paths and links as one already
// compiled, and the same blob at every path that compile read, has the
// same ABI: it is taken, not compiled again. Its tree is still exported
// and checked (tree.go) first: reuse skips the compiler, never the check.

// view is one compiled version of a git repository, as reuse compares it.
type view struct {
	paths string            // hash of the paths, their modes and the links' targets
	blobs map[string]string // path → blob id of every file of the tree
	done  chan struct{}     // closed once compiled

	// Set before done is closed; reads is nil when the compile failed or
	// read a file of the tree it cannot name as a blob.
	reads   map[string]string // path → blob id of every file of the tree it read
	abi     *abi.ABI
	outside []string
}

// newView describes a version's tree from its listing.
func newView(files []lsEntry) *view {
	v := &view{blobs: make(map[string]string, len(files)), done: make(chan struct{})}
	lines := make([]string, 0, len(files))
	for _, e := range files {
		l := e.mode + " " + e.path
		if e.mode == "120000" {
			l += " " + e.id // a link's target is its blob
		}
		lines = append(lines, l)
		if e.kind == "blob" {
			v.blobs[e.path] = e.id
		}
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		fmt.Fprintf(h, "%s\x00", l)
	}
	v.paths = hex.EncodeToString(h.Sum(nil))
	return v
}

// matches reports whether w, compiled, read in v's tree exactly what it
// read in its own.
func (v *view) matches(w *view) bool {
	if w.reads == nil || w.paths != v.paths {
		return false
	}
	for p, id := range w.reads {
		if v.blobs[p] != id {
			return false
		}
	}
	return true
}

// reuse returns the ABI of a version compiled in this build whose view
// matches v's. A version still compiling is waited for when one compiled
// before with the same paths read nothing that differs between the two
// (its reads predict the other's); otherwise v is compiled, and
// registered for the versions after it. done is to be called with the
// compile's outcome when reuse returns ok false (a second call does
// nothing: a deferred one after a panic never leaves a version waiting).
func (b *Builder) reuse(ctx context.Context, v *view) (a *abi.ABI, outside []string, ok bool, done func(tree string, a *abi.ABI, outside, deps []string)) {
	b.mu.Lock()
	same := b.views[v.paths]
	b.mu.Unlock()
	var finished []*view
	for _, w := range same {
		select {
		case <-w.done:
			if v.matches(w) {
				return w.abi, w.outside, true, nil
			}
			finished = append(finished, w)
		default:
		}
	}
	for _, w := range same {
		select {
		case <-w.done:
			continue
		default:
		}
		predicted := false
		for _, f := range finished {
			if f.reads != nil && v.predicts(w, f) {
				predicted = true
				break
			}
		}
		if !predicted {
			continue
		}
		select {
		case <-w.done:
		case <-ctx.Done():
			return nil, nil, false, func(string, *abi.ABI, []string, []string) {}
		}
		if v.matches(w) {
			return w.abi, w.outside, true, nil
		}
	}
	b.mu.Lock()
	if b.views == nil {
		b.views = map[string][]*view{}
	}
	b.views[v.paths] = append(b.views[v.paths], v)
	b.mu.Unlock()
	var once sync.Once
	return nil, nil, false, func(tree string, a *abi.ABI, outside, deps []string) {
		once.Do(func() {
			defer close(v.done)
			if a == nil {
				return
			}
			v.abi, v.outside = a, outside
			v.reads = readsOf(tree, deps, v.blobs)
		})
	}
}

// predicts reports whether the files f read are the same blobs in v's
// tree as in w's: then w most likely read, in its tree, what v has.
func (v *view) predicts(w, f *view) bool {
	for p := range f.reads {
		if v.blobs[p] != w.blobs[p] {
			return false
		}
	}
	return true
}

// readsOf names each file of the tree at root that the compile read
// (deps, its -MD list) by its path in the repository and its blob id;
// nil when one is not a blob of the tree (so nothing is reused from it).
func readsOf(root string, deps []string, blobs map[string]string) map[string]string {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	reads := map[string]string{}
	for _, d := range deps {
		p, err := filepath.Abs(d)
		if err != nil {
			return nil
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if !within(p, real) {
			continue // a system header: the entry's dependencies (entry.go)
		}
		rel, err := filepath.Rel(real, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		id, ok := blobs[rel]
		if !ok || strings.HasPrefix(rel, "../") {
			return nil
		}
		reads[rel] = id
	}
	return reads
}
