// Package abitext writes an ABI (package abi) as the text `abifloor abi
// dump` prints: symbols by version, then the named types.
package abitext
