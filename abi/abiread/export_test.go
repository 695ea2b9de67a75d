package abiread

// The fixture builders of names_test.go, for the tests of member loading
// in package abiread_test (abimember imports this package).
var (
	SharedStringLib = sharedStringLib
	TarGz           = tarGz
	Noise           = noise
	ReadFile        = readFile
)
