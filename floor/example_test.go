package floor_test

import (
	"context"
	"fmt"

	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/targets"
)

// Check /usr/bin/ls against Debian 11 (glibc 2.31): ls from a newer
// distribution needs more, and the violation names the target.
func ExampleCheck() {
	deb11, _ := targets.Lookup("debian-11")
	rq := floor.Requirements{Targets: []targets.Target{deb11}}
	res, err := floor.Check(context.Background(), []string{"/usr/bin/ls"}, rq, floor.Options{})
	if err != nil || res.Err != nil {
		fmt.Println(err, res.Err)
		return
	}
	for _, v := range res.Violations {
		if v.Namespace == "GLIBC" {
			fmt.Println(v.Path, "needs GLIBC above", v.Allowed, "for", v.Target)
		}
	}
	// Output: /usr/bin/ls needs GLIBC above 2.31 for debian-11
}
