package main

import "runtime"

func init() {
	// [amd64]: the host runs x86_64 code.
	scriptConds["amd64"] = func() bool { return runtime.GOARCH == "amd64" }
}
