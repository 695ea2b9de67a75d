package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// mkfifo FILE makes a named pipe: commands must refuse it, not block.
	scriptCmds["mkfifo"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: mkfifo FILE")
		}
		ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
	}
	// debugbomb FILE CLAIM REAL writes an executable whose zstd-compressed
	// .debug_info claims CLAIM bytes and really expands to REAL bytes.
	scriptCmds["debugbomb"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: debugbomb FILE CLAIM REAL")
		}
		claim, err := strconv.ParseUint(args[1], 10, 64)
		ts.Check(err)
		real, err := strconv.ParseInt(args[2], 10, 64)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), elfgen.DebugBomb(claim, real), 0o644))
	}
	// longname FILE.s N writes assembly defining one function whose name
	// is N bytes of "A": one string table entry of N bytes, that gzip
	// shrinks a thousand times.
	scriptCmds["longname"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: longname FILE.s N")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		name := strings.Repeat("A", n)
		src := ".text\n.globl " + name + "\n.type " + name + ",@function\n" + name + ":\n call memcpy@PLT\n ret\n.section .note.GNU-stack,\"\",@progbits\n"
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(src), 0o644))
	}
	// cpq SRC DEST copies SRC to DEST, a Go-quoted name that may hold
	// control characters ("evil\n::error::x").
	scriptCmds["cpq"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: cpq SRC \"DEST\"")
		}
		dest, err := strconv.Unquote(args[1])
		ts.Check(err)
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(dest), b, 0o755))
	}
	// patchbytes FILE "OLD" "NEW" replaces every OLD in FILE by NEW, both
	// Go-quoted and of the same length (a symbol renamed in place).
	scriptCmds["patchbytes"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: patchbytes FILE \"OLD\" \"NEW\"")
		}
		old, err := strconv.Unquote(args[1])
		ts.Check(err)
		repl, err := strconv.Unquote(args[2])
		ts.Check(err)
		if len(old) != len(repl) {
			ts.Fatalf("patchbytes: %d bytes replaced by %d", len(old), len(repl))
		}
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		if !bytes.Contains(b, []byte(old)) {
			ts.Fatalf("patchbytes: %q not in %s", old, args[0])
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), bytes.ReplaceAll(b, []byte(old), []byte(repl)), 0o755))
	}
	// gone PATTERN fails if a file matches the glob PATTERN.
	scriptCmds["gone"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: gone PATTERN")
		}
		m, err := filepath.Glob(ts.MkAbs(args[0]))
		ts.Check(err)
		if len(m) > 0 {
			ts.Fatalf("left behind: %s", strings.Join(m, " "))
		}
	}
	// dead PIDFILE... waits (a generous while) for each process whose ID
	// the file holds to be gone; a zombie counts as gone.
	scriptCmds["dead"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) == 0 {
			ts.Fatalf("usage: dead PIDFILE...")
		}
		for _, f := range args {
			b, err := os.ReadFile(ts.MkAbs(f))
			ts.Check(err)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			ts.Check(err)
			if !processGone(pid, 30*time.Second) {
				ts.Fatalf("process %d (%s) is still running", pid, f)
			}
		}
	}
}

// processGone polls /proc until pid is gone or a zombie, for at most wait.
func processGone(pid int, wait time.Duration) bool {
	for end := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		// The state follows the command name in parentheses.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}
