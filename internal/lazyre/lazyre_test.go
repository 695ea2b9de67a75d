package lazyre

import "testing"

func TestNew(t *testing.T) {
	re := New(`^a+$`)
	if !re().MatchString("aaa") || re().MatchString("b") {
		t.Fatal("wrong match")
	}
	first, again := re(), re()
	if first != again {
		t.Fatal("compiled twice")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a malformed expression did not panic at first use")
		}
	}()
	New(`(`)()
}
