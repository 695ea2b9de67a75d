package artefact

import (
	"bufio"
	"bytes"
	"compress/flate"
	"io"
	"math/rand"
	"os"
	"testing"
)

// deflated is data deflated at each level (stored, fixed and dynamic
// blocks all occur).
func deflated(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func TestInflateHead(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	random := make([]byte, 5000)
	rnd.Read(random)
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog 0123456789\n"), 200)
	inputs := map[string][]byte{"empty": nil, "one": {0x7f}, "random": random, "text": text}
	if b, err := os.ReadFile("/bin/sh"); err == nil {
		inputs["elf"] = b
	}
	for name, data := range inputs {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.BestCompression, flate.HuffmanOnly} {
			z := deflated(t, data, level)
			for _, n := range []int{0, 1, 4, 64, HeadSize, 4096, len(data), len(data) + 10} {
				got, err := inflateHead(bufio.NewReader(bytes.NewReader(z)), n)
				if err != nil {
					t.Fatalf("%s level %d n %d: %v", name, level, n, err)
				}
				want := data[:min(n, len(data))]
				if !bytes.Equal(got, want) {
					t.Fatalf("%s level %d n %d: got %d bytes, differ from the first %d", name, level, n, len(got), len(want))
				}
			}
		}
	}
}

// FuzzInflateHead: on any input inflateHead never panics, and where the
// standard library inflates the stream, the head is its first bytes.
func FuzzInflateHead(f *testing.F) {
	f.Add(deflated(f, []byte("\x7fELF\x02\x01\x01 hello hello hello"), flate.BestCompression), 16)
	f.Add(deflated(f, bytes.Repeat([]byte("ab"), 300), flate.BestSpeed), HeadSize)
	f.Add([]byte{0x01, 0x03, 0x00, 0xfc, 0xff, 'a', 'b', 'c'}, 2)
	f.Fuzz(func(t *testing.T, z []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got, err := inflateHead(bufio.NewReader(bytes.NewReader(z)), n)
		if err != nil {
			return
		}
		all, ferr := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), int64(n)))
		if ferr != nil && len(all) < len(got) {
			return // the stdlib refuses a stream inflateHead read part of
		}
		if len(got) > n || !bytes.Equal(got, all[:min(len(all), len(got))]) {
			t.Fatalf("head of %x (n %d) = %x, stdlib %x", z, n, got, all)
		}
	})
}
