package floor_test

import (
	"context"
	"fmt"
	"os"

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

// A check as abifloor check runs it, through the package alone: the
// verdict (the meaning of check's exit code: fail is 1) and the JSON
// document abifloor check --format json writes, warnings included.
// libgrow.so calls reallocarray, new in glibc 2.26 (testdata/grow.c).
func ExampleCheckResult_WriteJSON() {
	var rq floor.Requirements
	rq.Add("GLIBC", "2.17", "--max")
	rq.Add("GLIBCXX", "3.4.19", "--max")
	res, err := floor.Check(context.Background(), []string{"testdata/libgrow.so"}, rq, floor.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res.WriteJSON(os.Stdout)
	fmt.Println("verdict:", res.Verdict())
	// Output:
	// {
	//   "files": [
	//     {
	//       "path": "testdata/libgrow.so",
	//       "arch": "x86_64",
	//       "kind": "shared-library",
	//       "libc": "glibc",
	//       "needed": [
	//         "libc.so.6"
	//       ],
	//       "floors": {
	//         "GLIBC": "2.26"
	//       },
	//       "needs": [
	//         {
	//           "library": "libc.so.6",
	//           "versions": [
	//             "GLIBC_2.2.5",
	//             "GLIBC_2.26"
	//           ]
	//         }
	//       ],
	//       "notes": [
	//         "call sites: no DWARF line information in the file or a separate debug file (build with -g, or name a --debug-dir): sites name their functions only"
	//       ]
	//     }
	//   ],
	//   "floors": {
	//     "GLIBC": "2.26"
	//   },
	//   "stats": {
	//     "files": 1,
	//     "elf": 1,
	//     "errors": 0,
	//     "symlinks": 0,
	//     "special": 0,
	//     "hardlinks": 0,
	//     "excluded": 0
	//   },
	//   "violations": [
	//     {
	//       "path": "testdata/libgrow.so",
	//       "namespace": "GLIBC",
	//       "required": "2.26",
	//       "allowed": "2.17",
	//       "symbols": [
	//         "reallocarray@GLIBC_2.26"
	//       ],
	//       "target": "--max",
	//       "attribution": [
	//         {
	//           "symbol": "reallocarray@GLIBC_2.26",
	//           "cause": {
	//             "class": "new-function",
	//             "reason": "reallocarray is new in glibc 2.26",
	//             "fix": "reallocarray: glibc 2.26; not in glibc 2.17: replace it, or load it at run time (dlsym) where it exists"
	//           },
	//           "sites": [
	//             {
	//               "function": "grow",
	//               "address": "0x4f5",
	//               "kind": "call",
	//               "inlined": []
	//             }
	//           ]
	//         }
	//       ]
	//     }
	//   ],
	//   "warnings": [
	//     "--max GLIBCXX=3.4.19: no file needs a GLIBCXX version, so this limit checked nothing"
	//   ]
	// }
	// verdict: fail
}
