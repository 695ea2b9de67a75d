// Package cache is a content-addressed directory cache shared by many
// concurrent processes: abifloor cc runs once per compiler invocation, and a
// parallel build starts dozens at a time, all wanting the same stubs.
//
// An entry is a whole directory named by the hash of its key. A builder
// fills a temporary directory inside the cache, syncs it, and renames it into
// place; rename is atomic, so a reader that finds the entry finds all of it,
// and readers never lock. Builders of one key serialise on a flock of a
// per-key lock file, and the one that gets the lock second finds the entry
// built and does nothing: a key is built once. A crashed builder leaves only
// a temporary directory (removed by the next build of that key) and a lock
// the kernel has already released.
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
	"time"

	"golang.org/x/sys/unix"
)

// Cache is a cache directory.
type Cache struct {
	Dir string
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

// Open returns the cache in dir, creating the directory.
func Open(dir string) (*Cache, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("cache: %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "locks"), 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Cache{Dir: abs}, nil
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
// yet. Concurrent calls for one key, in any processes, build it once.
func (c *Cache) Get(ctx context.Context, key string, build func(tmp, final string) error) (string, error) {
	final := c.Path(key)
	if isDir(final) {
		return final, nil
	}
	h := hashKey(key)
	lock, err := lockFile(ctx, filepath.Join(c.Dir, "locks", h+".lock"))
	if err != nil {
		return "", err
	}
	defer lock.Close() // closing releases the flock
	if isDir(final) {
		return final, nil // someone built it while we waited
	}
	// Temporary directories of this key are leftovers of a crashed builder:
	// we hold the lock, so nobody else is filling one.
	if old, _ := filepath.Glob(filepath.Join(c.Dir, ".tmp-"+h+"-*")); len(old) > 0 {
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

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// lockFile takes an exclusive flock, polling so that ctx can cancel the wait.
func lockFile(ctx context.Context, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cache: lock: %w", err)
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
// rename that publishes root never publishes data still only in memory.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		if d.IsDir() {
			return syncDir(p)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

func syncDir(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
