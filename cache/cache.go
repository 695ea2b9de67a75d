// Package cache is a content-addressed directory cache shared by many
// concurrent processes: abifloor cc runs once per compiler invocation, and a
// parallel build starts dozens at a time, all wanting the same stubs.
//
// An entry is a whole directory named by the hash of its key. A builder
// fills a temporary directory inside the cache, records the hash of every
// file in a manifest inside it, syncs it, and renames it into place; rename
// is atomic, so a reader that finds the entry finds all of it, and readers
// never lock. Builders of one key serialise on a flock of a per-key lock
// file, and the one that gets the lock second finds the entry built and does
// nothing: a key is built once. A crashed builder leaves only a temporary
// directory (removed by the next build of that key) and a lock the kernel has
// already released.
//
// What the cache holds is linked into programs, so it trusts only what its
// user made, as Go's build cache and ccache do (see trust.go): the root must
// belong to the user and be writable by nobody else (a root the cache creates
// is 0700), locks and entries are opened without following symbolic links,
// and an entry is used only after its files match its manifest. An entry
// that does not is moved aside and rebuilt.
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Cache is a cache directory.
type Cache struct {
	Dir string
	// Warn, when set, is told about entries refused and rebuilt.
	Warn func(msg string)
}

// DefaultDir is where the cache lives unless told otherwise: $ABIFLOOR_CACHE,
// else $XDG_CACHE_HOME/abifloor, else ~/.cache/abifloor.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("ABIFLOOR_CACHE"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "abifloor"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("cache: no cache directory: set ABIFLOOR_CACHE, XDG_CACHE_HOME or HOME")
	}
	return filepath.Join(home, ".cache", "abifloor"), nil
}

// Path is where the entry of key lives (whether or not it exists yet).
func (c *Cache) Path(key string) string {
	return filepath.Join(c.Dir, hashKey(key))
}

func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}

// Get returns the directory of key's entry, building it first when absent.
// build fills tmp, a fresh directory that will be renamed to final; files it
// writes may name final (a linker script does) but must not need it to exist
// yet, and symbolic links it makes must name files beside them. Concurrent
// calls for one key, in any processes, build it once. An existing entry that
// fails verification is replaced. An entry verified before and unchanged
// since, by its stamp (stamp.go), is not read again.
func (c *Cache) Get(ctx context.Context, key string, build func(tmp, final string) error) (string, error) {
	final := c.Path(key)
	h := hashKey(key)
	if c.stamped(final, h) {
		return final, nil
	}
	start := time.Now()
	if stats, err := verifyEntryStats(final, h); err == nil {
		c.writeStamp(h, stats, start)
		return final, nil
	}
	lock, err := lockFile(ctx, filepath.Join(c.Dir, "locks", h+".lock"))
	if err != nil {
		return "", err
	}
	defer lock.Close() // closing releases the flock
	err = verifyEntry(final, h)
	if err == nil {
		return final, nil // someone built it while we waited
	}
	// We hold the lock: nobody else is filling a temporary directory of
	// this key, so any is a crashed builder's, and a bad entry can be moved
	// aside without racing a builder.
	if !errors.Is(err, fs.ErrNotExist) {
		if c.Warn != nil {
			c.Warn(fmt.Sprintf("cache: refusing entry %s (%v); rebuilding it", final, err))
		}
		bad, merr := os.MkdirTemp(c.Dir, ".bad-"+h+"-")
		if merr != nil {
			return "", fmt.Errorf("cache: %w", merr)
		}
		if err := os.Rename(final, filepath.Join(bad, "entry")); err != nil {
			return "", fmt.Errorf("cache: moving aside %s: %w", final, err)
		}
	}
	for _, pat := range []string{".tmp-" + h + "-*", ".bad-" + h + "-*"} {
		old, _ := filepath.Glob(filepath.Join(c.Dir, pat))
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	tmp, err := os.MkdirTemp(c.Dir, ".tmp-"+h+"-")
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	if err := build(tmp, final); err != nil {
		return "", err
	}
	if err := writeManifest(tmp, h); err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	if err := syncTree(tmp); err != nil {
		return "", fmt.Errorf("cache: syncing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	ok = true
	if err := syncDir(c.Dir); err != nil {
		return "", fmt.Errorf("cache: syncing %s: %w", c.Dir, err)
	}
	return final, nil
}

// lockFile takes an exclusive flock, polling so that ctx can cancel the wait.
// The lock file is opened without following a symbolic link, so a link
// planted in locks/ cannot make the cache create a file elsewhere.
func lockFile(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("cache: lock %s is a symbolic link, which the cache never makes: refusing it", path)
		}
		return nil, fmt.Errorf("cache: lock: %w", err)
	}
	if err := ownedFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cache: lock %s: %w", path, err)
	}
	wait := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("cache: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 50*time.Millisecond)
	}
}

// syncTree fsyncs every regular file and directory under root, so that the
// rename that publishes root never publishes data still only in memory. The
// files are synced several at a time: a journalling file system commits
// concurrent syncs together, where one after another each waits for its own
// commit (41 in a row cost a cold stub build 90 ms).
func syncTree(root string) error {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	errs := make([]error, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(syncWorkers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = syncDir(paths[i])
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// syncWorkers bounds the files synced at once.
const syncWorkers = 16

// syncDir fsyncs the file or directory p.
func syncDir(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
