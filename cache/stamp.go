package cache

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A warm build asks for the same entries on every compiler call, and
// hashing every file of a stub set each time cost a call more than the rest
// of the cache's work. So once an entry has verified in full, the cache
// records what the kernel says of each of its files (device, inode, type and
// mode, owner, size, modification and change times) in a verification stamp,
// locks/KEY.stamp, private to the user (0600, in the user's 0700 locks
// directory). While every file still stats exactly as stamped, the entry is
// what was verified: a write, chmod, chown, rename or replacement changes the
// change time (which no unprivileged call can set), a file added to or
// removed from a directory changes the directory's, and each file is
// lstat'ed, never followed. Then only the owner rule is checked again, on
// the stat itself; any difference, or a stamp that is missing, torn or not
// the user's own, means a full verification (which writes a new stamp).
//
// A stamp is written only for files whose change time is over a second
// older than the verification that read them: a change made within the
// same tick of the kernel's coarse clock as the stat could otherwise leave
// the change time as stamped (git's "racily clean" index entries). The stamp
// guards against what the manifest guards against, files changed after
// they were verified; like the manifest, it cannot stop the user's own
// writes through a mapping made before the stamp, which need not touch the
// change time until written back.

const stampHeader = "abifloor cache stamp 1"

// stampMargin is how much older than the verification a file's change time
// must be for the file to be stamped.
var stampMargin = time.Second

// fileStat is what a stamp records of one file of an entry.
type fileStat struct {
	rel            string // relative to the entry: "." is the entry itself
	dev, ino       uint64
	mode, uid      uint32
	size           int64
	mtime, ctimeNs int64
}

func statOf(rel string, st *unix.Stat_t) fileStat {
	return fileStat{rel: rel, dev: st.Dev, ino: st.Ino, mode: st.Mode, uid: st.Uid, size: st.Size,
		mtime: st.Mtim.Nano(), ctimeNs: st.Ctim.Nano()}
}

func (s fileStat) line() string {
	return fmt.Sprintf("%d %d %d %d %d %d %d %s", s.dev, s.ino, s.mode, s.uid, s.size, s.mtime, s.ctimeNs, strconv.Quote(s.rel))
}

func (c *Cache) stampPath(keyHash string) string {
	return filepath.Join(c.Dir, "locks", keyHash+".stamp")
}

// stamped reports whether the entry in dir stats exactly as its stamp
// recorded, and still follows the owner rule.
func (c *Cache) stamped(dir, keyHash string) bool {
	f, err := os.OpenFile(c.stampPath(keyHash), os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	euid := os.Geteuid()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG ||
		int(st.Uid) != euid || st.Mode&0o077 != 0 {
		return false
	}
	// The stamp must cover the entry as its manifest lists it, and no
	// more: one cut short, or written by hand, stamps nothing.
	m, err := os.OpenFile(filepath.Join(dir, manifestName), os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer m.Close()
	if ownedFile(m) != nil {
		return false
	}
	todo, err := readManifest(m, keyHash)
	if err != nil {
		return false
	}
	todo["."], todo[manifestName] = "", ""
	sc := bufio.NewScanner(io.LimitReader(f, maxManifest))
	if !sc.Scan() || sc.Text() != stampHeader+" "+keyHash {
		return false
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "end" {
			return !sc.Scan() && len(todo) == 0
		}
		want, ok := parseStamp(line)
		if _, listed := todo[want.rel]; !ok || !listed {
			return false
		}
		delete(todo, want.rel)
		if err := unix.Lstat(filepath.Join(dir, want.rel), &st); err != nil {
			return false
		}
		// The owner rule, as verification applies it: a symbolic
		// link's mode means nothing.
		if statOf(want.rel, &st) != want || int(st.Uid) != euid ||
			st.Mode&unix.S_IFMT != unix.S_IFLNK && st.Mode&0o022 != 0 {
			return false
		}
	}
	return false
}

// parseStamp reads one line of a stamp.
func parseStamp(line string) (fileStat, bool) {
	var s fileStat
	f := strings.SplitN(line, " ", 8)
	if len(f) != 8 {
		return s, false
	}
	var nums [7]int64
	for i := range nums {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || v < 0 && i < 5 {
			return s, false
		}
		nums[i] = v
	}
	rel, err := strconv.Unquote(f[7])
	if err != nil || nums[2] > 1<<32-1 || nums[3] > 1<<32-1 {
		return s, false
	}
	return fileStat{rel: rel, dev: uint64(nums[0]), ino: uint64(nums[1]), mode: uint32(nums[2]), uid: uint32(nums[3]),
		size: nums[4], mtime: nums[5], ctimeNs: nums[6]}, true
}

// writeStamp records stats, taken by a verification that started at
// start, as keyHash's stamp; it writes nothing when a file changed too
// recently to be told apart from a later change. A stamp is a shortcut:
// failing to write one only costs the next call a full verification.
func (c *Cache) writeStamp(keyHash string, stats []fileStat, start time.Time) {
	limit := start.Add(-stampMargin).UnixNano()
	var b strings.Builder
	b.WriteString(stampHeader + " " + keyHash + "\n")
	for _, s := range stats {
		if s.ctimeNs >= limit {
			return
		}
		b.WriteString(s.line() + "\n")
	}
	b.WriteString("end\n")
	// os.CreateTemp makes the file 0600, with O_EXCL; the rename replaces
	// whatever holds the name, a planted link included, without following
	// it.
	tmp, err := os.CreateTemp(filepath.Join(c.Dir, "locks"), ".stamp-"+keyHash+"-")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(b.String())
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), c.stampPath(keyHash)) != nil {
		os.Remove(tmp.Name())
	}
}
