package glibc

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// embeddedDigest hashes the embedded database: any change to it changes
// every cache key, which is simpler than hashing one architecture's part and
// costs only a rebuild of the stubs after an upgrade.
var embeddedDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(embedded)
	return hex.EncodeToString(sum[:])
})
