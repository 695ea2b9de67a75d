package main

import (
	"strings"
	"testing"
)

func TestLinkOutput(t *testing.T) {
	for _, tt := range []struct {
		args string
		out  string
		link bool
		exe  bool
	}{
		{"x.c", "a.out", true, true},
		{"-o prog x.c", "prog", true, true},
		{"-oprog x.c", "prog", true, true},
		{"-c x.c -o x.o", "", false, false},
		{"-S x.c", "", false, false},
		{"-E x.c", "", false, false},
		{"-shared -fPIC -o libx.so x.c", "libx.so", true, false},
		{"-static -o s x.c", "s", true, false},
		{"-o", "a.out", true, true},
		{"--version", "", false, false},
	} {
		args := strings.Fields(tt.args)
		out, link := linkOutput(args)
		if out != tt.out || link != tt.link {
			t.Errorf("linkOutput(%q) = %q, %v; want %q, %v", tt.args, out, link, tt.out, tt.link)
		}
		if exe := linksExecutable(args); exe != tt.exe {
			t.Errorf("linksExecutable(%q) = %v", tt.args, exe)
		}
	}
}
