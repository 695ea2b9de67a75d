package ranges

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/internal/input"
)

// dep is a file the compiler read from outside the version's tree, and
// the hash of its content then ("" when it could not be read).
type dep struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// hashFile hashes one dependency, once per build.
func (b *Builder) hashFile(p string) string {
	b.mu.Lock()
	if h, ok := b.hashes[p]; ok {
		b.mu.Unlock()
		return h
	}
	b.mu.Unlock()
	h := ""
	if in, err := input.Open(p, nil, nil); err == nil {
		fh := sha256.New()
		if _, err := io.Copy(fh, io.NewSectionReader(in.FD, 0, in.Size)); err == nil {
			h = hex.EncodeToString(fh.Sum(nil))
		}
		in.Close()
	}
	b.mu.Lock()
	if b.hashes == nil {
		b.hashes = map[string]string{}
	}
	b.hashes[p] = h
	b.mu.Unlock()
	return h
}

func (b *Builder) hashDeps(paths []string) []dep {
	out := make([]dep, 0, len(paths))
	for _, p := range paths {
		out = append(out, dep{p, b.hashFile(p)})
	}
	return out
}

func (b *Builder) depsCurrent(deps []dep) bool {
	for _, d := range deps {
		if b.hashFile(d.Path) != d.SHA256 {
			return false
		}
	}
	return true
}

// depsKey is the key of key's entry for the dependencies as they are now.
func (b *Builder) depsKey(key string, deps []dep) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", key)
	for _, d := range deps {
		fmt.Fprintf(h, "%s %s\n", d.Path, b.hashFile(d.Path))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cacheEntry is one cached ABI. Fingerprint is checked against the ABI on
// every read, so a truncated or edited entry is rebuilt, never trusted.
type cacheEntry struct {
	Key         string   `json:"key"`
	Fingerprint string   `json:"fingerprint"`
	ABI         *abi.ABI `json:"abi"`
	// Deps are the files the compiler read from outside the version's
	// tree, with their hashes: the entry holds only while they match.
	Deps []dep `json:"deps"`
}

// maxEntry bounds a cache entry read back.
const maxEntry = 64 << 20

// entryName is the file of a cache entry's directory that holds the ABI.
const entryName = "abi.json"

// readEntry returns the ABI stored in an entry's file and its
// fingerprint, or an error saying why it is not sound. Package cache has
// checked the file against the entry's manifest; the fingerprint and key
// are checked again here.
func readEntry(p, key string) (*abi.ABI, []dep, string, error) {
	in, err := input.Open(p, nil, nil)
	if err != nil {
		return nil, nil, "", err
	}
	defer in.Close()
	if in.Size > maxEntry {
		return nil, nil, "", fmt.Errorf("%d bytes, more than the %d an entry may have", in.Size, maxEntry)
	}
	data, err := io.ReadAll(io.NewSectionReader(in.FD, 0, maxEntry+1))
	if err != nil {
		return nil, nil, "", err
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, nil, "", err
	}
	if e.Key != key || e.ABI == nil {
		return nil, nil, "", errWrongKey
	}
	fp := e.ABI.Fingerprint()
	if fp != e.Fingerprint {
		return nil, nil, "", errEntryHash
	}
	return e.ABI, e.Deps, fp, nil
}

var (
	errWrongKey  = errors.New("wrong key")
	errEntryHash = errors.New("hash mismatch")
)

// writeEntry writes an entry and returns the ABI's fingerprint.
func writeEntry(p, key string, a *abi.ABI, deps []dep) (string, error) {
	fp := a.Fingerprint()
	data, err := json.Marshal(struct {
		Key         string    `json:"key"`
		Fingerprint string    `json:"fingerprint"`
		ABI         *plainABI `json:"abi"`
		Deps        []dep     `json:"deps"`
	}{key, fp, (*plainABI)(a), deps})
	if err != nil {
		return "", fmt.Errorf("cache: %w", err)
	}
	return fp, os.WriteFile(p, data, 0o644)
}

// plainABI is abi.ABI without its MarshalJSON, which would add the
// fingerprint, hashing the whole ABI again: the entry has it once, and
// reading it back (abi.ABI's UnmarshalJSON) never kept it.
type plainABI abi.ABI
