package errjson

import "testing"

func TestMarshal(t *testing.T) {
	type rep struct {
		Path  string `json:"path"`
		Error error  `json:"-"`
	}
	for _, tc := range []struct {
		msg       string
		omitEmpty bool
		want      string
	}{
		{"", false, `{"path":"a<b","error":""}`},
		{"", true, `{"path":"a<b"}`},
		{"bad & \"worse\"", true, `{"path":"a<b","error":"bad & \"worse\""}`},
	} {
		b, err := Marshal(rep{Path: "a<b"}, tc.msg, tc.omitEmpty)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%q, %v) = %s, %v; want %s", tc.msg, tc.omitEmpty, b, err, tc.want)
		}
	}
	type empty struct{}
	if b, _ := Marshal(empty{}, "x", false); string(b) != `{"error":"x"}` {
		t.Errorf("empty struct: %s", b)
	}
}
