package floor

// marker is a non-numeric version name with a documented effect on a floor.
type marker struct {
	Namespace string // the floor it raises, or ""
	Version   string // the version it implies
	Why       string
}

// markers lists non-numeric version names that imply a numeric floor.
var markers = map[string]marker{
	"GLIBC_ABI_DT_RELR": {
		Namespace: "GLIBC", Version: "2.36",
		Why: "DT_RELR relocations: the dynamic loader learned them in glibc 2.36",
	},
}
