package main

import "testing"

func TestSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "512M": 512 << 20, "300MB": 300 << 20, "1GiB": 1 << 30, "2g": 2 << 30, "64k": 64 << 10} {
		var s sizeFlag
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, s, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "M", "1X", "1.5G", "99999999999T", "1 G"} {
		var s sizeFlag
		if err := s.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, s)
		}
	}
}
