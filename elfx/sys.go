package elfx

import (
	"errors"
	"syscall"
)

// syscallNonblock keeps open from blocking should a FIFO be swapped in
// between the caller's check and the open.
const syscallNonblock = syscall.O_NONBLOCK

var errNotRegular = errors.New("not a regular file")
