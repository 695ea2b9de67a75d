package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/rogpeppe/go-internal/testscript"
)

// outerGoEnv is the go command's environment outside the script, so that a
// script building Go code reuses the build cache instead of rebuilding the
// standard library.
var outerGoEnv = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		return nil
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		if i < len(f) {
			m[k] = f[i]
		}
	}
	return m
})

// bullseyeDir is where .ci/fetch-bullseye.sh unpacked Debian bullseye's
// glibc 2.31 ($ABIFLOOR_BULLSEYE, else its default), or "" when absent.
var bullseyeDir = sync.OnceValue(func() string {
	dir := os.Getenv("ABIFLOOR_BULLSEYE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache/abifloor/bullseye")
	}
	if _, err := os.Stat(filepath.Join(dir, "lib/x86_64-linux-gnu/ld-2.31.so")); err != nil {
		return ""
	}
	return dir
})

// runtimeBullseye is where .ci/fetch-runtime.sh unpacked bullseye's C
// and C++ runtime ($ABIFLOOR_RUNTIME/bullseye), or "" when absent.
var runtimeBullseye = sync.OnceValue(func() string {
	dir := os.Getenv("ABIFLOOR_RUNTIME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache/abifloor/runtime")
	}
	dir = filepath.Join(dir, "bullseye")
	for _, f := range []string{"lib/x86_64-linux-gnu/ld-2.31.so", "usr/lib/x86_64-linux-gnu/libstdc++.so.6"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return ""
		}
	}
	return dir
})

func init() {
	// rustenv: CARGO_HOME and RUSTUP_HOME as outside the script (rustup's
	// proxies need them; the script's HOME is not the user's).
	scriptCmds["rustenv"] = func(ts *testscript.TestScript, neg bool, args []string) {
		home, _ := os.UserHomeDir()
		for k, def := range map[string]string{"CARGO_HOME": ".cargo", "RUSTUP_HOME": ".rustup"} {
			v := os.Getenv(k)
			if v == "" {
				v = filepath.Join(home, def)
			}
			ts.Setenv(k, v)
		}
	}
	// plant DIR SCRIPT: an attacker's edit of a cache entry: every libc.so
	// under DIR is replaced by the file SCRIPT.
	scriptCmds["plant"] = func(ts *testscript.TestScript, neg bool, args []string) {
		b, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		n := 0
		filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Name() == "libc.so" {
				ts.Check(os.WriteFile(p, []byte(os.Expand(string(b), ts.Getenv)), 0o644))
				n++
			}
			return nil
		})
		if n == 0 {
			ts.Fatalf("no libc.so under %s", args[0])
		}
	}
	// [relr]: gcc's linker makes DT_RELR (-z pack-relative-relocs,
	// binutils 2.38 and later).
	scriptConds["relr"] = sync.OnceValue(func() bool {
		gcc, err := exec.LookPath("gcc")
		return err == nil && fixture.Have("gcc") && fixture.Supports(gcc, "-Wl,-z,pack-relative-relocs")
	})
	// [proxy]: the Go module proxy answers (go list -m of a module
	// through it, within 30 s), for scripts that build a real module.
	scriptConds["proxy"] = sync.OnceValue(func() bool {
		if !fixture.Have("go") {
			return false // the fast tier reaches no registry
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "list", "-m", "github.com/NVIDIA/go-nvml@v0.13.4-1")
		cmd.Dir = os.TempDir()
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
		return cmd.Run() == nil
	})
	// [runtime-bullseye]: bullseye's libc6, libstdc++6 and libgcc-s1, as
	// .ci/fetch-runtime.sh bullseye unpacks them.
	scriptConds["runtime-bullseye"] = func() bool { return runtimeBullseye() != "" }
	// [!] bullseye-rt PROG ARGS...: run PROG with bullseye's real loader,
	// C library and C++ runtime (and the script's directory).
	scriptCmds["bullseye-rt"] = func(ts *testscript.TestScript, neg bool, args []string) {
		r := runtimeBullseye()
		lib := filepath.Join(r, "lib/x86_64-linux-gnu")
		path := lib + ":" + filepath.Join(r, "usr/lib/x86_64-linux-gnu") + ":" + ts.Getenv("WORK")
		err := ts.Exec(filepath.Join(lib, "ld-2.31.so"), append([]string{"--library-path", path, ts.MkAbs(args[0])}, args[1:]...)...)
		if (err != nil) != neg {
			ts.Fatalf("bullseye run of %s: %v", args[0], err)
		}
	}
	// [bullseye]: Debian bullseye's glibc 2.31 is unpacked (see bullseyeDir).
	scriptConds["bullseye"] = func() bool { return bullseyeDir() != "" }
	// [!] glibc231 PROG ARGS...: run PROG with bullseye's real loader and
	// libraries (and the script's directory), as on a glibc 2.31 system.
	scriptCmds["glibc231"] = func(ts *testscript.TestScript, neg bool, args []string) {
		lib := filepath.Join(bullseyeDir(), "lib/x86_64-linux-gnu")
		err := ts.Exec(filepath.Join(lib, "ld-2.31.so"), append([]string{"--library-path", lib + ":" + ts.Getenv("WORK"), ts.MkAbs(args[0])}, args[1:]...)...)
		if (err != nil) != neg {
			ts.Fatalf("glibc 2.31 run of %s: %v", args[0], err)
		}
	}
	// goenv: set GOCACHE, GOMODCACHE, GOPATH and GOROOT as outside the script.
	scriptCmds["goenv"] = func(ts *testscript.TestScript, neg bool, args []string) {
		env := outerGoEnv()
		if env == nil {
			ts.Fatalf("go env failed")
		}
		for k, v := range env {
			ts.Setenv(k, v)
		}
	}
}
