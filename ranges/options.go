package ranges

import "github.com/abifloor/abifloor/ranges/table"

// Options are the header options of a build (table.Options): what abi
// headers compiles and keeps for each version.
type Options table.Options
