package glibc

// The headers of the embedded database's architectures and its digest are
// kept beside it in headers_gen.go, written from it by
// `go test ./glibc -run TestHeadersGenerated -update` (and checked by
// that test on every run): a warm abifloor cc reads neither the database
// (unpacking it costs more than the rest of its work) nor its bytes (a
// SHA-256 of 129 KB on every call).

// Digest is the hash of the embedded database, which every cache key holds.
func Digest() string { return embeddedSHA256 }

// ArchHeader is the header of an architecture of the embedded database,
// named as elfx.ParseArch reads names: what ResolveWith, Check and Key
// need, without its libraries. An architecture the database lacks gets
// the database's own error.
func ArchHeader(name string) (*Arch, error) {
	name = archName(name)
	for _, h := range archHeaders {
		if h.Name == name {
			a := h
			a.Digest = embeddedSHA256
			return &a, nil
		}
	}
	return LoadArch(name, false)
}
