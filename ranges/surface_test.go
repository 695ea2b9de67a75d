package ranges

import (
	"errors"
	"slices"
	"testing"
)

func TestParseSurface(t *testing.T) {
	s, err := ParseSurface([]byte(`{"include":["inc"],"headers":["nvos.h","ctrl/*.h"],"types":["A"],"opaque":["B"],"constants":["C"]}`))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Headers: []string{"nvos.h", "x.h"}, Types: []string{"Z"}}
	o.Merge(s)
	if !slices.Equal(o.Headers, []string{"nvos.h", "x.h", "ctrl/*.h"}) || !slices.Equal(o.Types, []string{"Z", "A"}) || !slices.Equal(o.Opaque, []string{"B"}) || !slices.Equal(o.Consts, []string{"C"}) || !slices.Equal(o.Includes, []string{"inc"}) {
		t.Errorf("merged %+v", o)
	}
	for _, bad := range []string{``, `[]`, `{"typo":[]}`, `{"types":[""]}`, `{"types":"A"}`, `{} {}`,
		`{"headers":["/etc/passwd"]}`, `{"headers":["../../secret.h"]}`, `{"include":["inc/../.."]}`, `{"include":["/"]}`, `{"headers":["a.h\n#include </etc/passwd>"]}`} {
		if _, err := ParseSurface([]byte(bad)); !errors.Is(err, ErrSurface) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseSurface(f *testing.F) {
	f.Add([]byte(`{"include":["inc"],"headers":["nvos.h","ctrl/*.h"],"types":["A"],"opaque":["B"],"constants":["C"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSurface(b)
		if err != nil {
			if !errors.Is(err, ErrSurface) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		var o Options
		o.Merge(s)
		if err := o.Check(); err != nil {
			t.Fatalf("a surface that parsed makes options Check refuses: %v", err)
		}
		o.Merge(s)
		if len(o.Types) > len(s.Types) {
			t.Fatal("a name given twice counted twice")
		}
	})
}
