package bind

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/limits"
)

// maxBuildInfo bounds the .go.buildinfo section read: its header, the Go
// version and the module list, a few KiB in practice.
const maxBuildInfo = limits.BuildInfo

// goLinkerBindNow reports whether the Go linker itself asked for
// BIND_NOW in o, a Go binary that has it: with -ldflags=-bindnow, for a
// plugin or a shared Go library, or for a program that can load plugins
// (it imports "plugin", so the linker exports its Go symbols). The same
// flags in a binary linked with -extldflags=-Wl,-z,now are the user's, and
// saying "Go linker" then would send a reader to the wrong place. The
// build settings are read from .go.buildinfo (Go 1.18 and later); without
// them only the exported Go symbols tell.
func goLinkerBindNow(f *elfx.File, o *object) bool {
	if o.provides("runtime.main", "") {
		return true // exports its Go symbols: it may load plugins
	}
	for _, s := range goBuildSettings(f) {
		k, v, _ := strings.Cut(s, "=")
		switch k {
		case "-buildmode":
			if v == "plugin" || v == "shared" {
				return true
			}
		case "-ldflags":
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			for _, a := range strings.Fields(v) {
				a = strings.Trim(a, `'"`)
				switch strings.TrimLeft(a, "-") {
				case "bindnow", "bindnow=true", "linkshared":
					return true
				}
			}
		}
	}
	return false
}

// goBuildSettings are the "build" lines of the module information in
// .go.buildinfo ("-buildmode=exe", "-ldflags=..."), nil when the section
// is absent, too large, or of a layout before Go 1.18 (pointers, not
// inline strings).
func goBuildSettings(f *elfx.File) []string {
	s := f.Section(".go.buildinfo")
	if s == nil || s.Size > maxBuildInfo || s.Size < 32 {
		return nil
	}
	b, err := f.SectionData(s, elfx.NewBudget(maxBuildInfo))
	if err != nil {
		return nil
	}
	return parseBuildSettings(b)
}

// parseBuildSettings reads the build lines out of the bytes of a
// .go.buildinfo section: a 32-byte header ("\xff Go buildinf:", pointer
// size, flags; flag 2 says the strings follow inline), then the Go
// version and the module information, each a uvarint length and bytes.
func parseBuildSettings(b []byte) []string {
	if len(b) < 32 || !bytes.HasPrefix(b, []byte("\xff Go buildinf:")) || b[15]&2 == 0 {
		return nil
	}
	b = b[32:]
	var strs [2]string
	for i := range strs {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return nil
		}
		strs[i], b = string(b[w:w+int(n)]), b[w+int(n):]
	}
	var out []string
	for _, line := range strings.Split(strs[1], "\n") {
		if rest, ok := strings.CutPrefix(line, "build\t"); ok {
			out = append(out, rest)
		}
	}
	return out
}
