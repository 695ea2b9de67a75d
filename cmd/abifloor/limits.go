package main

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeFlag is a byte count written as a number with an optional unit:
// 512M, 2G, 300MB, 1GiB (units are powers of 1024, as ulimit counts).
type sizeFlag int64

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *sizeFlag) Set(v string) error {
	num := strings.TrimRight(v, "KMGTiBkmgtb")
	unit := strings.TrimSuffix(strings.ToUpper(v[len(num):]), "B") // MiB, MB, M
	unit = strings.TrimSuffix(unit, "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<62)>>sh {
		return fmt.Errorf("%q is not a size (a positive number with an optional K, M, G or T)", v)
	}
	*s = sizeFlag(n << sh)
	return nil
}
