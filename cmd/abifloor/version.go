package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/abifloor/abifloor/targets"
)

// buildVersion is the module version the binary was built at ("(devel)"
// for a build from a checkout).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// vcsRevision is the commit (and "+dirty") the binary was built from,
// when the build recorded it.
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	if at != "" {
		rev += " (" + at + ")"
	}
	return rev
}

func runVersion(_ context.Context, env *cmdEnv, _ []string) int {
	fmt.Fprintln(env.stdout, "abifloor", buildVersion())
	if rev := vcsRevision(); rev != "" {
		fmt.Fprintln(env.stdout, "revision:", rev)
	}
	fmt.Fprintln(env.stdout, "platform policies:", targets.PoliciesFrom)
	return exitOK
}
