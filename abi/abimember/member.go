// Package abimember reads an ABI (package abi) from a path as a command
// line names it: a file, or an ELF member of an artefact (a wheel, a
// .deb, an image). It is apart from package abiread because artefacts
// bring the decompressors.
package abimember

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/internal/limits"
)

// An ABI is read from a file, or from an ELF member of an artefact named
// as scan reports it: "pkg.whl!/numpy/core/x.so" (nested:
// "dist.zip!/pkg.tgz!/lib/x.so"). An artefact named alone stands for its
// one ELF member; with several, the caller is told their names, as
// auditwheel show lists a wheel's libraries, since one dump (and one side
// of a diff) is one ABI.

// ErrManyELF is returned by LoadArg for an artefact holding several ELF
// members: the message lists them.
var ErrManyELF = errors.New("holds several ELF files; name one as ARTEFACT!/MEMBER")

// LoadArg reads the ABI of arg, as a command line names it: a file (ELF
// or ABI JSON), an artefact with one ELF member, or ARTEFACT!/MEMBER. It returns the name the ABI is
// reported under. prog, when set, follows the reading of an artefact.
func LoadArg(ctx context.Context, arg string, opt abiread.Options, prog func(artefact, member string, read, total int64)) (*abi.ABI, string, error) {
	if _, err := os.Stat(arg); err == nil {
		if !isArtefact(arg) {
			a, err := abiread.Load(ctx, arg, opt)
			return a, arg, err
		}
		return loadMember(ctx, arg, "", opt, prog)
	}
	// The artefact is the first prefix before a "!/" that is a file (or
	// an image layout): the rest, "!/" and all, names the member, as scan
	// names a member of a nested artefact ("/pkg.tgz!/lib/x.so").
	if a, member, ok := artefact.Split(arg, func(a string) bool {
		st, err := os.Stat(a)
		return err == nil && (st.Mode().IsRegular() || artefact.IsLayout(a))
	}); ok {
		return loadMember(ctx, a, member, opt, prog)
	}
	_, err := os.Stat(arg)
	return nil, arg, err
}

// isArtefact tells an artefact from an ELF file or ABI JSON by its first
// bytes, as scan does.
func isArtefact(p string) bool { return artefact.KindOf(p) != "" }

// What the member of an artefact costs abi is bounded by the artefact's
// own size: a 250 KB .tar.gz held a 250 MiB library, and its dump cost
// 2.8 GB. A member read for its ABI goes to a private temporary file
// past memberSpillOver bytes, not to memory, and the walk decompresses at
// most artefact.HoldLimit of the artefact's size (32 times it plus 4
// MiB), where a scan's walk may decompress 200 times (it keeps members
// sparse). Past it the member is a decompression bomb (artefact.ErrBomb);
// extracted, it is a file of its own size.
const memberSpillOver = limits.SpillOver

// errStopWalk ends an artefact walk once the member is read.
var errStopWalk = errors.New("stop")

// loadMember reads the ABI of the ELF member named member ("/lib/x.so")
// of the artefact at path, or of its only ELF member when member is "".
func loadMember(ctx context.Context, path, member string, opt abiread.Options, prog func(artefact, member string, read, total int64)) (*abi.ABI, string, error) {
	var (
		a     *abi.ABI
		found []string
		lerr  error
		// bad is the first member that could not be read, unnamed:
		// with no ELF member found, it may have been the one.
		bad  error
		nbad = map[string]bool{}
	)
	// Debug sections are outside the loaded segments: members are read
	// whole (bounded by artefact.DefaultMaxMember), never sparse.
	aopt := artefact.Options{SparseOver: -1, SpillOver: memberSpillOver, Hold: true}
	real := artefact.SizeOf(path)
	if prog != nil {
		aopt.Progress = func(m string, read, total int64) { prog(path, m, read, total) }
	}
	err := artefact.Walk(ctx, path, aopt, func(m *artefact.Member) error {
		if member != "" && m.Name != member {
			return nil
		}
		name := artefact.Join(path, m.Name)
		if m.Err != nil {
			if member != "" {
				lerr = fmt.Errorf("%s: %w", name, m.Err)
				return errStopWalk
			}
			if nbad[m.Name] = true; bad == nil {
				bad = fmt.Errorf("%s: %w", name, m.Err)
			}
			return nil
		}
		if m.Content == nil {
			if member != "" {
				lerr = fmt.Errorf("%s: not an ELF file", name)
				return errStopWalk
			}
			return nil
		}
		found = append(found, name)
		if len(found) > 1 {
			a = nil
			return nil
		}
		mopt := opt
		mopt.InputSize = real
		a, lerr = abiread.LoadReader(ctx, name, m.Content, m.Size, mopt)
		if member != "" {
			return errStopWalk
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, path, err
	}
	switch {
	case lerr != nil:
		return nil, path, lerr
	case len(found) == 0 && member != "":
		return nil, path, fmt.Errorf("%s: no member %s", path, member)
	case len(found) == 0 && bad != nil:
		return nil, path, fmt.Errorf("%s: no ELF file read from the artefact; members that could not be read: %d, the first: %w", path, len(nbad), bad)
	case len(found) == 0:
		return nil, path, fmt.Errorf("%s: no ELF file in the artefact", path)
	case len(found) > 1:
		return nil, path, fmt.Errorf("%s: %w:\n  %s", path, ErrManyELF, strings.Join(found, "\n  "))
	}
	return a, found[0], nil
}
