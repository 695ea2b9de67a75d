package main

import (
	"fmt"
	"sync"
	"time"
)

// progress returns a function that shows a status line on stderr, at
// most ten times a second, and one that clears it. Both do nothing unless
// stderr is a terminal. The status function is safe for concurrent use.
func progress(env *cmdEnv) (show func(format string, args ...any), done func()) {
	if !env.errTTY {
		return func(string, ...any) {}, func() {}
	}
	var mu sync.Mutex
	last := time.Now()
	show = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) > 100*time.Millisecond {
			last = time.Now()
			// Clear what a longer line before left (the artefacts'
			// lines and the counts take turns).
			fmt.Fprintf(env.stderr, "\r"+format+"\x1b[K", args...)
		}
	}
	return show, func() { fmt.Fprint(env.stderr, "\r\x1b[K") }
}
