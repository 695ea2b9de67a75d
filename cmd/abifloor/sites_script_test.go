package main

import (
	"os/exec"
	"strings"

	"github.com/abifloor/abifloor/symver"
)

func init() {
	// [glibc236]: this host's glibc has arc4random (2.36), a function
	// debian-11 (2.31) lacks: a floor above a target that a program
	// compiled now can have.
	scriptConds["glibc236"] = func() bool {
		out, err := exec.Command("getconf", "GNU_LIBC_VERSION").Output()
		if err != nil {
			return false
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "glibc ")
		return ok && symver.Compare(v, "2.36") >= 0
	}
}
