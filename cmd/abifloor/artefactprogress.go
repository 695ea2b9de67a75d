package main

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/abifloor/abifloor/report"
)

// progressMinArtefact is the size from which an artefact's reading is
// shown on a terminal: a smaller one is read before a line could be seen.
const progressMinArtefact = 4 << 20

// progressWidth is what the status line may take: a longer line wraps and
// "\r" no longer returns to its start.
const progressWidth = 79

// artefactStatus is the status line for an artefact being read: its name,
// the MB read of its size and the member being read, shortened from the
// left to fit width columns ("libllvm.deb 37.2/124.0 MB …/libLLVM.so.19.1").
// It is "" for an artefact under progressMinArtefact.
func artefactStatus(artefact, member string, read, total int64, width int) string {
	if total < progressMinArtefact {
		return ""
	}
	line := fmt.Sprintf("%s %.1f/%.1f MB", report.Clean(filepath.Base(artefact)), float64(read)/1e6, float64(total)/1e6)
	if n := utf8.RuneCountInString(line); n > width {
		return string([]rune(line)[n-width:])
	}
	m := report.Clean(member)
	room := width - utf8.RuneCountInString(line) - 1
	if n := utf8.RuneCountInString(m); n > room {
		if room < 2 {
			return line
		}
		m = "…" + string([]rune(m)[n-room+1:])
	}
	return line + " " + m
}

// showArtefacts returns a floor.Options.ArtefactProgress that shows large
// artefacts' reading with show.
//
// It is called for every member of every artefact (a jar's 33,000), and
// show prints at most ten lines a second: the line is made only when the
// last one is a tenth of a second old (making it for each member was 7%
// of scan /usr).
func showArtefacts(show func(string, ...any)) func(artefact, member string, read, total int64) {
	var last atomic.Int64
	return func(artefact, member string, read, total int64) {
		now := time.Now().UnixNano()
		if l := last.Load(); now-l < int64(100*time.Millisecond) || !last.CompareAndSwap(l, now) {
			return
		}
		if s := artefactStatus(artefact, member, read, total, progressWidth); s != "" {
			show("%s", s)
		}
	}
}
