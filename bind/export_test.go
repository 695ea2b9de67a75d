package bind

import (
	"io"

	"github.com/abifloor/abifloor/elfx"
)

// Parsed is the number of distinct files parsed so far.
func (a *Auditor) Parsed() int {
	a.objs.mu.Lock()
	defer a.objs.mu.Unlock()
	return a.objs.parsed
}

// Len is the number of entries.
func (c *ldCache) Len() int {
	if c == nil {
		return 0
	}
	return c.n
}

// Entries returns every entry (for tests), grouped by name in no
// particular order of names.
func (c *ldCache) Entries() []cacheEntry {
	var out []cacheEntry
	if c == nil {
		return nil
	}
	for _, es := range c.byName {
		out = append(out, es...)
	}
	return out
}

// openObject opens and parses path. The file must be regular.
func openObject(path string) (*object, error) {
	in, err := hostFS{}.open(path, nil, make([]byte, headSize))
	if err != nil {
		return nil, err
	}
	defer in.close()
	return parseInput(in)
}

// parseObject reads everything the audit needs from an ELF image.
func parseObject(r io.ReaderAt, size int64) (*object, error) {
	return parseObjectHead(r, size, nil, 0, "")
}

// eachDef calls fn with every definition a lookup finds, by name and
// version.
func (o *object) eachDef(fn func(name, version string)) {
	if o.gnu != nil {
		o.gnu.Each(func(s elfx.Symbol) {
			if s.Exported() {
				fn(s.Name, s.Version)
			}
		})
		return
	}
	for name, h := range o.defHead {
		for i := h; i >= 0; i = o.defs[i].next {
			fn(name, o.defs[i].version)
		}
	}
}

// searchPath is the search path of l's DT_NEEDED entries before the
// cache: the RPATHs of the loader chain (unless l has a RUNPATH), then
// LD_LIBRARY_PATH, then l's RUNPATH. It is built once per loaded object.
// As ld.so's fillin_rpath, a directory is searched once however often it
// is named; and a directory whose name leaves no room for a file name
// below PATH_MAX is dropped, since open(2) refuses such a path
// (ENAMETOOLONG). A directory that does not exist is dropped too, as it
// can hold nothing. So an RPATH's directories cost once per object, and
// the work of a search is bounded by the bytes of the search path.
func (a *Auditor) searchPath(l *loaded) []*dirEntry { return a.searchList(l).dirs }
