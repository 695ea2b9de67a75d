package main

import "os"

func init() {
	// [root]: permission bits do not stop root from reading a file.
	scriptConds["root"] = func() bool { return os.Geteuid() == 0 }
}
