package targets

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes ts as a table for a person: a row per target, its
// kind, its limits (a dash where it sets none) and aliases, then what a
// dash means.
func WriteText(w io.Writer, ts []Target) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tKIND\tGLIBC\tGLIBCXX\tCXXABI\tGCC\tALIASES")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Kind, dash(t.Limits["GLIBC"]), dash(t.Limits["GLIBCXX"]),
			dash(t.Limits["CXXABI"]), dash(t.Limits["GCC"]), strings.Join(t.Aliases, " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A dash is not an unknown: say what it means, so that nobody reads
	// SLES's "-" as "libstdc++ of any age is there" without the reason.
	_, err := fmt.Fprintln(w, "-: not limited. SLES updates libstdc++6 to the newest GCC's runtime (a system without those updates has an older one); musllinux has no glibc; a compiler does not pin glibc.")
	return err
}
