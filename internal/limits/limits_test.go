package limits

import (
	"os"
	"strings"
	"testing"
)

// TestSecurityTable holds docs/security.md's table of limits to the
// values set here: each row of Rows is in the table, and its default
// column says the value.
func TestSecurityTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cols := strings.Split(line, " | ")
		if len(cols) >= 2 {
			cells[strings.TrimPrefix(cols[0], "| ")] = cols[1]
		}
	}
	for _, r := range Rows() {
		cell, ok := cells[r.Limit]
		if !ok {
			t.Errorf("docs/security.md has no row %q", r.Limit)
			continue
		}
		if !strings.Contains(cell, r.Default) {
			t.Errorf("docs/security.md, row %q: %q does not say %q", r.Limit, cell, r.Default)
		}
	}
}

func TestFor(t *testing.T) {
	l := For(1 << 20)
	if l.Hold != 36<<20 || l.RPMHeader != 36<<20 || l.Expand != 200<<20 {
		t.Errorf("For(1 MiB) = %+v", l)
	}
	if l := For(10 << 20); l.RPMHeader != RPMHeader {
		t.Errorf("For(10 MiB).RPMHeader = %d, want the cap", l.RPMHeader)
	}
	if l := For(-1); l.Hold != HoldSlack || l.Expand != 0 {
		t.Errorf("For(-1) = %+v", l)
	}
}
