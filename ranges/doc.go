// Package ranges turns one ABI per version into a range table: maximal runs
// of consecutive versions whose ABIs have the same fingerprint. A table
// answers "is this version's ABI known?" in O(log n), including for versions
// that were never built: a version between the first and last observed
// version of one range is covered by it (inferred), a version in a gap
// between two different ranges or outside all of them is not.
//
// A change that is later reverted is not hidden: the run after the revert is
// a separate range marked SameAs the earlier range it equals, so every
// version inside a range is proven unchanged, not assumed.
//
// Tables are built from ABI files, header trees or the tags of a git
// repository (Build), each version compiled once and cached by the content
// of its inputs, and written as JSON (docs/ranges.md), text, Go source or a
// self-contained HTML timeline.
package ranges
