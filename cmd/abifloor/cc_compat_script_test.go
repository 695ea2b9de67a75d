package main

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// bullseyeI386 is Debian bullseye's i386 libc6 (glibc 2.31) as
// .ci/fetch-libc6.sh unpacks it ($ABIFLOOR_LIBC6/bullseye/i386), or ""
// when absent.
var bullseyeI386 = sync.OnceValue(func() string {
	dir := os.Getenv("ABIFLOOR_LIBC6")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache/abifloor/libc6")
	}
	lib := filepath.Join(dir, "bullseye/i386/lib/i386-linux-gnu")
	if _, err := os.Stat(filepath.Join(lib, "ld-2.31.so")); err != nil {
		return ""
	}
	return lib
})

func init() {
	// [bullseye-i386]: bullseye's i386 glibc 2.31 is unpacked (bullseyeI386).
	scriptConds["bullseye-i386"] = func() bool { return bullseyeI386() != "" }
	// [!] glibc231-i386 PROG ARGS...: run the i386 PROG with bullseye's
	// real i386 loader and libraries (and the script's directory).
	scriptCmds["glibc231-i386"] = func(ts *testscript.TestScript, neg bool, args []string) {
		lib := bullseyeI386()
		err := ts.Exec(filepath.Join(lib, "ld-2.31.so"), append([]string{"--library-path", lib + ":" + ts.Getenv("WORK"), ts.MkAbs(args[0])}, args[1:]...)...)
		if (err != nil) != neg {
			ts.Fatalf("i386 glibc 2.31 run of %s: %v", args[0], err)
		}
	}
}
