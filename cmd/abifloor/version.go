package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/targets"
)

// version and commit may be set at link time, for a build that records
// no module version or VCS state (the GitHub Action builds from a
// checkout of its own ref):
//
//	go build -ldflags "-X main.version=v0.3.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/abifloor
var version, commit string

// buildVersion is the module version the binary was built at ("(devel)"
// for a build from a checkout).
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// vcsRevision is the commit (and "+dirty") the binary was built from,
// when the build recorded it.
func vcsRevision() string {
	if commit != "" {
		if len(commit) > 12 {
			return commit[:12]
		}
		return commit
	}
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

func runVersion(_ context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "version", "[--format text|json]")
	format := fs.String("format", "text", "output format: text|json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	if f == report.JSON {
		v := struct {
			Version  string `json:"version"`
			Revision string `json:"revision,omitempty"`
			Policies string `json:"platform_policies"`
		}{buildVersion(), vcsRevision(), targets.PoliciesFrom}
		if err := report.WriteJSON(env.stdout, v); err != nil {
			return exitError
		}
		return exitOK
	}
	fmt.Fprintln(env.stdout, "abifloor", buildVersion())
	if rev := vcsRevision(); rev != "" {
		fmt.Fprintln(env.stdout, "revision:", rev)
	}
	fmt.Fprintln(env.stdout, "platform policies:", targets.PoliciesFrom)
	return exitOK
}
