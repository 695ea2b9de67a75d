package bind

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"

	"github.com/abifloor/abifloor/elfx"
)

// interpVerdict is the kernel's refusal to start a program whose
// PT_INTERP names no loader in the image: execve fails with ENOENT before
// any library is looked at, and the shell says "cannot execute: required
// file not found" (a musl program on a glibc system, a toolbox binary
// whose loader is under /run/host, a typo). The interpreter is looked up
// as the kernel does, every link resolved inside the image; a file of
// another machine or one that is not ELF is what the kernel refuses with
// ELIBBAD. A relative interpreter is the working directory's, which no
// audit can know: it is not judged.
func (a *Auditor) interpVerdict(exe string, o *object) *verdict {
	if o.Interp == "" || !strings.HasPrefix(o.Interp, "/") || (o.Kind != elfx.Executable && o.Kind != elfx.PIEExecutable) {
		return nil
	}
	_, err := a.open(o.Interp, o)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		reason := "interpreter " + clip(o.Interp) + " not found"
		return &verdict{reason, exe + ": cannot execute: required file not found (" + reason + ")"}
	}
	reason := "interpreter " + clip(o.Interp) + ": " + a.brokenReason(o.Interp, o, err)
	return &verdict{reason, exe + ": cannot execute: " + reason}
}
