module github.com/abifloor/abifloor

go 1.24.0

require (
	github.com/ianlancetaylor/demangle v0.0.0-20250417193237-f615e6bd150b
	github.com/klauspost/compress v1.19.2
	github.com/rogpeppe/go-internal v1.14.1
	github.com/ulikunitz/xz v0.5.17
	golang.org/x/arch v0.24.0
	golang.org/x/sys v0.38.0
)

require golang.org/x/tools v0.26.0 // indirect
