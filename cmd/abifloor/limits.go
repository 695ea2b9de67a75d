package main

import "github.com/abifloor/abifloor/internal/cli"

// sizeFlag is a byte count written as a number with an optional unit
// (cli.Size: 512M, 2G, 300MB, 1GiB).
type sizeFlag = cli.Size
