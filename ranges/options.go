package ranges

// Options are the header options of a build, as abi headers takes them.
// Includes are relative to the root of each version's tree (a --dir
// directory or the git repository).
type Options struct {
	Includes []string `json:"includes,omitempty"`
	Headers  []string `json:"headers"`
	Types    []string `json:"types"`
	Consts   []string `json:"consts,omitempty"`
	Defines  []string `json:"defines,omitempty"` // NAME[=VALUE], passed as -D
	CC       string   `json:"cc,omitempty"`
	Arch     string   `json:"arch,omitempty"`
}
