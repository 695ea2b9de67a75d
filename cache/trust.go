package cache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// UntrustedError is a cache root the cache refuses to use: another user
// could change what it holds.
type UntrustedError struct {
	Dir    string
	Reason string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("cache: %s: %s; refusing to use it (another user could plant what gets linked)", e.Dir, e.Reason)
}

// ErrReadOnly is returned by Open for a cache root this user cannot write.
var ErrReadOnly = errors.New("cache directory is not writable")

// Open returns the cache in dir. A missing root is created with mode 0700. An
// existing root must be a directory owned by the user and not writable by
// group or others (else *UntrustedError), and writable (else an error
// wrapping ErrReadOnly). A symbolic link to such a root is resolved once, so
// later changes of the link do not redirect the cache.
func Open(dir string) (*Cache, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("cache: %s: %w", dir, err)
	}
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("cache: %w", err)
		}
		if err := os.Mkdir(abs, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("cache: %w", err)
		}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := trustedDir(real); err != nil {
		return nil, &UntrustedError{Dir: abs, Reason: err.Error()}
	}
	if err := unix.Access(real, unix.W_OK|unix.X_OK); err != nil {
		return nil, fmt.Errorf("cache: %s: %w", abs, ErrReadOnly)
	}
	locks := filepath.Join(real, "locks")
	if err := os.Mkdir(locks, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.EROFS) {
			return nil, fmt.Errorf("cache: %s: %w", abs, ErrReadOnly)
		}
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := trustedDir(locks); err != nil {
		return nil, &UntrustedError{Dir: locks, Reason: err.Error()}
	}
	return &Cache{Dir: real}, nil
}

// OpenPrivate opens dir as Open does; when Open refuses it (untrusted or
// read-only), it opens a private cache of this user under the temporary
// directory instead and says why in warning.
func OpenPrivate(dir string) (c *Cache, warning string, err error) {
	c, err = Open(dir)
	var ue *UntrustedError
	if err == nil || !(errors.As(err, &ue) || errors.Is(err, ErrReadOnly)) {
		return c, "", err
	}
	fallback := filepath.Join(os.TempDir(), fmt.Sprintf("abifloor-cache-%d", os.Geteuid()))
	c, ferr := openFallback(fallback)
	if ferr != nil {
		// Someone else made the usual fallback, or planted a link there:
		// a fresh directory is ours.
		tmp, terr := os.MkdirTemp("", "abifloor-cache-")
		if terr != nil {
			return nil, "", errors.Join(err, terr)
		}
		fallback = tmp
		if c, ferr = openFallback(tmp); ferr != nil {
			return nil, "", errors.Join(err, ferr)
		}
	}
	return c, fmt.Sprintf("%v; using the private cache %s instead", err, fallback), nil
}

// openFallback opens the private fallback cache p, which lies in a
// directory every user can write (the temporary directory): p must be a
// real directory, not a link to one (another user may plant
// /tmp/abifloor-cache-0 as a link to root's ~/.ssh, which root owns and
// Open would trust), owned by this user and reachable by no one else
// (mode 0700). It is checked without following links, and again after
// Open, so a link swapped in between is refused too.
func openFallback(p string) (*Cache, error) {
	if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cache: %w", err)
	}
	check := func() error {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return &UntrustedError{Dir: p, Reason: "not a directory (a symbolic link, or another file)"}
		}
		if int(st.Uid) != os.Geteuid() {
			return &UntrustedError{Dir: p, Reason: fmt.Sprintf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())}
		}
		if st.Mode&0o077 != 0 {
			return &UntrustedError{Dir: p, Reason: fmt.Sprintf("reachable by group or others (mode %04o, want 0700)", st.Mode&0o7777)}
		}
		return nil
	}
	if err := check(); err != nil {
		return nil, err
	}
	c, err := Open(p)
	if err != nil {
		return nil, err
	}
	// The temporary directory itself may be reached through a link
	// (TMPDIR=/var/tmp-link); the entry under it may not.
	parent, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := check(); err != nil || c.Dir != filepath.Join(parent, filepath.Base(p)) {
		return nil, &UntrustedError{Dir: p, Reason: "changed while it was opened"}
	}
	return c, nil
}

// trustedDir: a real directory owned by the user, writable only by them.
func trustedDir(p string) error {
	var st unix.Stat_t
	return trustedDirStat(p, &st)
}

// trustedDirStat is trustedDir, leaving what it read of p in st.
func trustedDirStat(p string, st *unix.Stat_t) error {
	if err := unix.Lstat(p, st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return errors.New("not a directory")
	}
	return ownedMode(st)
}

func ownedMode(st *unix.Stat_t) error {
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("writable by group or others (mode %04o)", st.Mode&0o7777)
	}
	return nil
}

// OwnedDir applies the rule for a cache root to an open directory: it must
// be owned by this user and writable by no one else, or another user could
// replace what is written there before it is used. Checking the open
// descriptor, not a path, leaves no window for a swap.
func OwnedDir(f *os.File) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return errors.New("not a directory")
	}
	return ownedMode(&st)
}

// ownedFile: an open regular file owned by the user, writable only by them.
func ownedFile(f *os.File) error {
	var st unix.Stat_t
	return ownedFileStat(f, &st)
}

// ownedFileStat is ownedFile, leaving what it read of f in st.
func ownedFileStat(f *os.File, st *unix.Stat_t) error {
	if err := unix.Fstat(int(f.Fd()), st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return errors.New("not a regular file")
	}
	return ownedMode(st)
}

// manifestName is the file in every entry that lists its other files.
const manifestName = ".abifloor-manifest"

const manifestHeader = "abifloor cache entry 1"

// maxManifest bounds what verification reads of a manifest.
const maxManifest = 1 << 20

// writeManifest records every file of the entry in dir: directories with
// their mode, regular files with their mode and SHA-256, symbolic links with
// their target, which must be a name in the same directory (an entry never
// points outside itself).
func writeManifest(dir, keyHash string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s\n", manifestHeader, keyHash)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if strings.Contains(t, "/") || t == ".." {
				return fmt.Errorf("%s: symbolic link to %s leaves its directory", rel, t)
			}
			fmt.Fprintf(&b, "l %s %s\n", strconv.Quote(t), strconv.Quote(rel))
		case d.IsDir():
			if err := dropWrite(p); err != nil {
				return err
			}
			fmt.Fprintf(&b, "d %s\n", strconv.Quote(rel))
		case d.Type().IsRegular():
			if err := dropWrite(p); err != nil {
				return err
			}
			sum, err := hashFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "f %s %s\n", sum, strconv.Quote(rel))
		default:
			return fmt.Errorf("%s: not a file, directory or symbolic link", rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, manifestName), b.Bytes(), 0o644)
}

// dropWrite takes group and other write permission away (a umask of 002
// would leave it), since verification refuses files others may change.
func dropWrite(p string) error {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode().Perm()&0o022 == 0 {
		return err
	}
	return os.Chmod(p, fi.Mode().Perm()&^0o022)
}

func hashFile(p string) (string, error) {
	var st unix.Stat_t
	return hashFileStat(p, &st)
}

// hashFileStat is hashFile, leaving in st what the open file stated before
// it was read.
func hashFileStat(p string, st *unix.Stat_t) (string, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := ownedFileStat(f, st); err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// verifyEntry checks the entry in dir before it is used: the directory and
// every file in it belong to the user and are writable by nobody else, the
// manifest names this key, and the files are exactly those of the manifest,
// with the recorded contents. A missing entry is an error wrapping
// fs.ErrNotExist.
func verifyEntry(dir, keyHash string) error {
	_, err := verifyEntryStats(dir, keyHash)
	return err
}

// verifyEntryStats is verifyEntry, returning what it stated of each file
// of the entry (the entry and its manifest included) before reading it:
// what a stamp records.
func verifyEntryStats(dir, keyHash string) ([]fileStat, error) {
	var st unix.Stat_t
	if err := trustedDirStat(dir, &st); err != nil {
		return nil, err
	}
	stats := []fileStat{statOf(".", &st)}
	f, err := os.OpenFile(filepath.Join(dir, manifestName), os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no manifest")
		}
		return nil, err
	}
	defer f.Close()
	if err := ownedFileStat(f, &st); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	stats = append(stats, statOf(manifestName, &st))
	want, err := readManifest(f, keyHash)
	if err != nil {
		return nil, err
	}
	seen := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == manifestName {
			return nil
		}
		w, ok := want[rel]
		if !ok {
			return fmt.Errorf("%s: not in the manifest", rel)
		}
		seen++
		var got string
		var st unix.Stat_t
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			if err := unix.Lstat(p, &st); err != nil {
				return err
			}
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			got = "l " + t
		case d.IsDir():
			if err := trustedDirStat(p, &st); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			got = "d "
		case d.Type().IsRegular():
			sum, err := hashFileStat(p, &st)
			if err != nil {
				return err
			}
			got = "f " + sum
		default:
			return fmt.Errorf("%s: not a file, directory or symbolic link", rel)
		}
		if got != w {
			return fmt.Errorf("%s: does not match the manifest", rel)
		}
		stats = append(stats, statOf(rel, &st))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != len(want) {
		return nil, fmt.Errorf("%d of the manifest's %d files are missing", len(want)-seen, len(want))
	}
	return stats, nil
}

// readManifest reads the manifest of keyHash's entry: each relative path
// with what it must be ("f SUM", "l TARGET" or "d ").
func readManifest(r io.Reader, keyHash string) (map[string]string, error) {
	want := map[string]string{} // relative path → "f SUM", "l TARGET" or "d"
	sc := bufio.NewScanner(io.LimitReader(r, maxManifest))
	if !sc.Scan() || sc.Text() != manifestHeader+" "+keyHash {
		return nil, errors.New("manifest is not this key's")
	}
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		var val string
		switch kind {
		case "f", "l":
			if kind == "f" {
				val, rest, _ = strings.Cut(rest, " ")
			} else {
				q, err := strconv.QuotedPrefix(rest)
				if err != nil {
					return nil, fmt.Errorf("manifest: %q: %v", sc.Text(), err)
				}
				val, _ = strconv.Unquote(q)
				rest = strings.TrimPrefix(rest[len(q):], " ")
			}
		case "d":
		default:
			return nil, fmt.Errorf("manifest: bad line %q", sc.Text())
		}
		name, err := strconv.Unquote(rest)
		if err != nil {
			return nil, fmt.Errorf("manifest: %q: %v", sc.Text(), err)
		}
		want[filepath.Clean(name)] = kind + " " + val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return want, nil
}
