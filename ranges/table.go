package ranges

import (
	"encoding/json"
	"fmt"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/ranges/table"
)

// Version is one observed version and its ABI. Fingerprint may be left
// empty when ABI is set; ABI may be nil when Fingerprint is set (then the
// table has no changes for that range).
type Version struct {
	Name        string
	Fingerprint string
	ABI         *abi.ABI
}

// New builds the table of the versions, in any order, with the changes
// between neighbouring ranges whose ABIs are known, and keeps one ABI per
// fingerprint in the table.
func New(types []string, vs []Version) (*table.Table, error) {
	abis, tv, err := split(vs)
	if err != nil {
		return nil, err
	}
	t, err := table.New(types, tv, differ(abis))
	if err != nil {
		return nil, err
	}
	if err := storeABIs(t, abis); err != nil {
		return nil, err
	}
	return t, nil
}

// Add adds one observed version to t, splitting the range it falls in
// when its ABI differs, and recomputes the marks and changes that depend
// on it. The ABIs stored in t are read (and their fingerprints checked)
// to compute the new changes.
func Add(t *table.Table, v Version) error {
	abis, err := ABIs(t)
	if err != nil {
		return err
	}
	more, tv, err := split([]Version{v})
	if err != nil {
		return err
	}
	for fp, a := range more {
		abis[fp] = a
	}
	if err := t.Add(tv[0], differ(abis)); err != nil {
		return err
	}
	return storeABIs(t, abis)
}

// ABIs decodes the ABIs stored in t, checking each against its
// fingerprint.
func ABIs(t *table.Table) (map[string]*abi.ABI, error) {
	out := map[string]*abi.ABI{}
	for fp, raw := range t.ABIs {
		var a abi.ABI
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("abis: the ABI stored under %s: %v", fp, err)
		}
		if a.Fingerprint() != fp {
			return nil, fmt.Errorf("abis: the ABI stored under %s does not have that fingerprint", fp)
		}
		out[fp] = &a
	}
	return out, nil
}

func split(vs []Version) (map[string]*abi.ABI, []table.Version, error) {
	abis := map[string]*abi.ABI{}
	tv := make([]table.Version, len(vs))
	hashed := map[*abi.ABI]string{} // versions often share one ABI
	for i, v := range vs {
		fp := v.Fingerprint
		if fp == "" {
			if v.ABI == nil {
				return nil, nil, fmt.Errorf("version %s: no ABI and no fingerprint", v.Name)
			}
			if fp = hashed[v.ABI]; fp == "" {
				fp = v.ABI.Fingerprint()
				hashed[v.ABI] = fp
			}
		}
		if v.ABI != nil {
			abis[fp] = v.ABI
		}
		tv[i] = table.Version{Name: v.Name, Fingerprint: fp}
	}
	return abis, tv, nil
}

func differ(abis map[string]*abi.ABI) table.Differ {
	return func(o, n string) []table.Change {
		if a, b := abis[o], abis[n]; a != nil && b != nil {
			return changesBetween(a, b)
		}
		return nil
	}
}

// storeABIs keeps in t the ABI of each fingerprint it has a range of.
func storeABIs(t *table.Table, abis map[string]*abi.ABI) error {
	t.ABIs = nil
	for _, r := range t.Ranges {
		a := abis[r.Fingerprint]
		if a == nil {
			continue
		}
		if t.ABIs == nil {
			t.ABIs = map[string]json.RawMessage{}
		}
		if _, ok := t.ABIs[r.Fingerprint]; ok {
			continue
		}
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		t.ABIs[r.Fingerprint] = b
	}
	return nil
}
