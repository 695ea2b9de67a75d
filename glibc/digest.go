package glibc

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// digest hashes fields unambiguously (each ends with a NUL).
type digest struct{ h hash.Hash }

func newDigest() *digest { return &digest{sha256.New()} }

func (d *digest) add(fields ...string) {
	for _, f := range fields {
		d.h.Write([]byte(f))
		d.h.Write([]byte{0})
	}
}

func (d *digest) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }
