package run

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A program that reads a stranger's input (a compiler given someone's
// headers) can be made to open any path the input computes: /dev/zero
// feeds it a gigabyte, a FIFO stalls it until its timeout, ~/.ssh/id_rsa
// ends up in its diagnostics. Checking the input first cannot see a name
// the preprocessor computes, so such a program is confined with Landlock:
// it can open what Confine lists and nothing else, and an open of
// anything else fails at once with EACCES.
//
// Landlock restricts the calling thread and what it starts, and no other
// thread. The program is started from a goroutine locked to an OS thread
// that restricts itself first; os/exec forks from that thread, so the
// child inherits the restriction, and the goroutine never unlocks: the
// Go runtime retires the thread when the goroutine returns, and creates
// new threads from a thread of its own, not from a locked one, so no
// other goroutine ever runs restricted. The goroutine returns only once
// the program has exited: Pdeathsig is sent when the thread that started
// the child ends, not the process.

// Confine is what a confined program may open; every other open fails.
// A path that does not exist is left out. The program itself, sh (for a
// memory limit) and what a dynamically linked program needs to start
// (the loader's cache and the library directories) are added.
type Confine struct {
	// Exec: read and execute, files or directories (a directory covers
	// everything under it).
	Exec []string
	// Read: read only.
	Read []string
	// Write: read, write, create and remove (a directory, its tree) or
	// read and write (a file, /dev/null).
	Write []string
}

// loaderPaths are what a dynamically linked program reads before main.
var loaderPaths = []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/lib32", "/etc/ld.so.cache", "/etc/ld.so.preload"}

// Access rights by the Landlock ABI that introduced them.
const (
	fsV1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsV2 = fsV1 | unix.LANDLOCK_ACCESS_FS_REFER
	fsV3 = fsV2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	fsV5 = fsV3 | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	netV4 = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP

	// Rights that make sense on a file (the kernel refuses others in a
	// rule for one).
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	rightsRead  = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	rightsExec  = rightsRead | unix.LANDLOCK_ACCESS_FS_EXECUTE
	rightsWrite = rightsRead | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
)

// ErrNoLandlock is wrapped by Confinement's error when the kernel cannot
// confine a program.
var ErrNoLandlock = errors.New("no Landlock in this kernel")

// probeLandlock asks the kernel which Landlock ABI it has; a test
// replaces it to play a kernel without one.
var probeLandlock = func() (int, error) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(v), nil
}

var landlock struct {
	sync.Mutex
	probed bool
	abi    int
	err    error
}

// Confinement reports the Landlock ABI the kernel has, asked once per
// process. Its error (wrapping ErrNoLandlock) says why a Cmd's Confine
// is not applied: such a program runs as it would without one.
func Confinement() (abi int, err error) {
	landlock.Lock()
	defer landlock.Unlock()
	if !landlock.probed {
		landlock.probed = true
		landlock.abi, landlock.err = probeLandlock()
		switch {
		case landlock.err != nil:
			landlock.err = fmt.Errorf("%w: %v (Linux 5.13 or later, with lsm=landlock)", ErrNoLandlock, landlock.err)
		case landlock.abi < 1:
			landlock.err = fmt.Errorf("%w: the kernel reports ABI %d", ErrNoLandlock, landlock.abi)
		}
	}
	return landlock.abi, landlock.err
}

// WithoutLandlock makes Confinement report a kernel without Landlock
// until restore is called. For tests of the fallback.
func WithoutLandlock() (restore func()) {
	landlock.Lock()
	probed, abi, err := landlock.probed, landlock.abi, landlock.err
	landlock.probed, landlock.abi, landlock.err = true, 0, fmt.Errorf("%w: %v (simulated)", ErrNoLandlock, unix.ENOSYS)
	landlock.Unlock()
	return func() {
		landlock.Lock()
		landlock.probed, landlock.abi, landlock.err = probed, abi, err
		landlock.Unlock()
	}
}

// ruleset builds a Landlock ruleset for c and the program argv0 (and
// sh, when it is not argv0's), on the ABI abi. The caller owns the fd.
func (c *Confine) ruleset(abi int, progs []string) (int, error) {
	attr := unix.LandlockRulesetAttr{Access_fs: fsV1}
	size := unsafe.Offsetof(attr.Access_net)
	switch {
	case abi >= 5:
		attr.Access_fs = fsV5
	case abi >= 3:
		attr.Access_fs = fsV3
	case abi >= 2:
		attr.Access_fs = fsV2
	}
	if abi >= 4 {
		// No TCP at all: a compiler has no use for the network.
		attr.Access_net = netV4
		size = unsafe.Offsetof(attr.Scoped)
	}
	if abi >= 6 {
		// Nor for abstract sockets or signals to processes outside.
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Sizeof(attr)
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	add := func(paths []string, rights uint64) error {
		for _, p := range paths {
			if err := addRule(int(fd), p, rights&attr.Access_fs); err != nil {
				return err
			}
		}
		return nil
	}
	err := add(progs, rightsExec)
	if err == nil {
		// Exec: the kernel opens the ELF interpreter (ld.so) for exec.
		err = add(loaderPaths, rightsExec)
	}
	if err == nil {
		err = add(c.Exec, rightsExec)
	}
	if err == nil {
		err = add(c.Read, rightsRead)
	}
	if err == nil {
		err = add(c.Write, rightsWrite)
	}
	if err != nil {
		unix.Close(int(fd))
		return -1, err
	}
	return int(fd), nil
}

// addRule allows rights beneath p (on p alone, when it is not a
// directory). A path that does not exist is no rule.
func addRule(fd int, p string, rights uint64) error {
	pfd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("confining to %s: %w", p, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("confining to %s: %w", p, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(pfd)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("confining to %s: landlock_add_rule: %w", p, e)
	}
	return nil
}

// startConfined starts cmd from a locked thread restricted to c, and
// keeps that thread until release is closed (the program has exited).
// progs are the executables cmd runs itself (the program, sh).
func startConfined(cmd *exec.Cmd, c *Confine, abi int, progs []string, release <-chan struct{}) error {
	started := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine.
		runtime.LockOSThread()
		if err := restrictThread(c, abi, progs); err != nil {
			started <- err
			return
		}
		err := cmd.Start()
		started <- err
		if err == nil {
			<-release
		}
	}()
	return <-started
}

func restrictThread(c *Confine, abi int, progs []string) error {
	fd, err := c.ruleset(abi, progs)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	// No new privileges is what lets an unprivileged thread restrict
	// itself; the program inherits it (no setuid helper can escape).
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// devNull is the program's standard input when the caller gives none,
// opened before the thread is restricted (os/exec would open it on the
// restricted thread).
func devNull() (*os.File, error) { return os.Open(os.DevNull) }
