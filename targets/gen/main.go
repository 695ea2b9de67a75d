// Command gen regenerates targets/policies.json from auditwheel's policy
// files. Run it from the targets directory (go generate ./targets):
//
//	go run ./gen                       # from auditwheel/*.json as committed
//	go run ./gen -from DIR             # first copy DIR's policy files in
//
// DIR is auditwheel's src/auditwheel/policy (or the project's copy of it);
// the copies in auditwheel/ are what the test regenerates from.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/abifloor/abifloor/targets/internal/auditwheel"
)

func main() {
	from := flag.String("from", "", "copy manylinux-policy.json and musllinux-policy.json from this directory first")
	out := flag.String("o", "policies.json", "output file")
	flag.Parse()
	if err := run(*from, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(from, out string) error {
	files := []string{"manylinux-policy.json", "musllinux-policy.json"}
	if from != "" {
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(from, f))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join("auditwheel", f), b, 0o644); err != nil {
				return err
			}
		}
	}
	var data [2][]byte
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join("auditwheel", f))
		if err != nil {
			return err
		}
		data[i] = b
	}
	b, err := auditwheel.Convert(data[0], data[1], "auditwheel")
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
