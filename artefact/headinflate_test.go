package artefact

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand"
	"os"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
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
	var shared headInflater // one for all, as a walk keeps it: no stale tables
	for name, data := range inputs {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.BestCompression, flate.HuffmanOnly} {
			z := deflated(t, data, level)
			for _, n := range []int{0, 1, 4, 64, HeadSize, 4096, len(data), len(data) + 10} {
				got, err := inflateHead(z, n)
				if err != nil {
					t.Fatalf("%s level %d n %d: %v", name, level, n, err)
				}
				want := data[:min(n, len(data))]
				if !bytes.Equal(got, want) {
					t.Fatalf("%s level %d n %d: got %d bytes, differ from the first %d", name, level, n, len(got), len(want))
				}
				if got, err := shared.head(z, n); err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s level %d n %d, reused inflater: %d bytes, %v", name, level, n, len(got), err)
				}
				// The start of the stream gives the head when it
				// holds enough of it, and says it is short when not.
				if got, err := inflateHead(z[:len(z)/2], n); err != nil && err != io.ErrUnexpectedEOF || err == nil && !bytes.Equal(got, want) {
					t.Fatalf("%s level %d n %d, half the stream: %d bytes, %v", name, level, n, len(got), err)
				}
			}
		}
	}
}

// FuzzInflateHead: on any input inflateHead never panics; where the
// standard library inflates the stream, inflateHead does too and the head
// is its first bytes.
func FuzzInflateHead(f *testing.F) {
	f.Add(deflated(f, []byte("\x7fELF\x02\x01\x01 hello hello hello"), flate.BestCompression), 16)
	f.Add(deflated(f, bytes.Repeat([]byte("ab"), 300), flate.BestSpeed), HeadSize)
	f.Add([]byte{0x01, 0x03, 0x00, 0xfc, 0xff, 'a', 'b', 'c'}, 2)
	f.Fuzz(func(t *testing.T, z []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got, err := inflateHead(z, n)
		all, ferr := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), int64(n)))
		if err != nil {
			if ferr == nil {
				t.Fatalf("head of %x (n %d): %v, where the stdlib inflates %x", z, n, err, all)
			}
			return
		}
		if ferr != nil && len(all) < len(got) {
			return // the stdlib refuses a stream inflateHead read part of
		}
		if len(got) > n || !bytes.Equal(got, all[:min(len(all), len(got))]) {
			t.Fatalf("head of %x (n %d) = %x, stdlib %x", z, n, got, all)
		}
	})
}

// BenchmarkInflateHead is the hot path of a jar's walk: the first
// HeadSize bytes of a deflated member, with the walk's buffers.
func BenchmarkInflateHead(b *testing.B) {
	data := bytes.Repeat([]byte("public final class Example extends java.lang.Object implements Runnable { int x; }\n"), 100)
	if elf, err := os.ReadFile("/bin/sh"); err == nil {
		data = elf[:min(len(elf), 16<<10)]
	}
	for _, level := range []int{flate.BestSpeed, flate.DefaultCompression} {
		z := deflated(b, data, level)
		b.Run(fmt.Sprint("level", level), func(b *testing.B) {
			var hi headInflater
			b.SetBytes(HeadSize)
			for b.Loop() {
				if _, err := hi.head(z, HeadSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWalkJar walks a zip of many small deflated members none of
// which is selected, as most of a jar is: one zipSkip each.
func BenchmarkWalkJar(b *testing.B) {
	var ents []ent
	for i := range 2000 {
		ents = append(ents, ent{name: fmt.Sprintf("com/example/C%d.class", i), data: bytes.Repeat([]byte(fmt.Sprintf("\xca\xfe\xba\xbe class %d body ", i)), 40)})
	}
	z := mkZip(b, ents)
	b.SetBytes(int64(len(z)))
	for b.Loop() {
		n := 0
		err := WalkReaderAt(context.Background(), bytes.NewReader(z), int64(len(z)), Options{}, func(*Member) error { n++; return nil })
		if err != nil || n != len(ents) {
			b.Fatal(n, err)
		}
	}
}

// gzipped is data gzip'd with the given header fields (every optional
// field of RFC 1952 occurs).
func gzipped(t testing.TB, data []byte, name, comment string, extra []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Name, w.Comment, w.Extra = name, comment, extra
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// stdHead is the head klauspost's gzip (the full reader's) reads from
// the start of a stream.
func stdHead(z []byte) ([]byte, error) {
	r, err := kgzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	// A member that ends before the head leaves the sniffer to the
	// full read, whatever member follows.
	r.Multistream(false)
	out := make([]byte, HeadSize)
	n, err := io.ReadFull(r, out)
	return out[:n], err
}

func TestGunzipHead(t *testing.T) {
	text := bytes.Repeat([]byte("a man page .TH LS 1\n"), 100)
	tar := mkTar(t, []ent{{name: "a.so", data: text}})
	for _, data := range [][]byte{text, tar, text[:10]} {
		for _, z := range [][]byte{
			gzipped(t, data, "", "", nil),
			gzipped(t, data, "ls.1", "a comment", []byte{'A', 'B', 2, 0, 'x', 'y'}),
		} {
			want, _ := stdHead(z)
			// The sniffer holds the first HeadSize bytes of a file, or
			// more; a head it cannot tell from is no answer.
			for _, k := range []int{HeadSize, 4096, len(z)} {
				got := gunzipHead(z[:min(k, len(z))])
				if len(got) == HeadSize && !bytes.Equal(got, want) || k == len(z) && !bytes.Equal(got, want) {
					t.Errorf("gunzipHead of %d bytes of %d: %q, want %q", k, len(z), got, want)
				}
			}
		}
	}
	// A header CRC (FHCRC) is checked, as the gzip readers do.
	z := gzipped(t, text, "", "", nil)
	hc := append([]byte(nil), z[:10]...)
	hc[3] |= 1 << 1
	crc := crc32.ChecksumIEEE(hc)
	good := append(append(hc, byte(crc), byte(crc>>8)), z[10:]...)
	if got := gunzipHead(good); !bytes.Equal(got, text[:HeadSize]) {
		t.Errorf("FHCRC: %q", got)
	}
	good[10] ^= 1
	if got := gunzipHead(good); got != nil {
		t.Errorf("a bad FHCRC gives %q, want nil", got)
	}
}

// FuzzGunzipHead: gunzipHead never panics, a full head it returns is
// what the full reader (klauspost's gzip) reads, and where the standard
// library reads a full head from a stream, so does gunzipHead. A stream
// gunzipHead refuses is left to the full reader.
func FuzzGunzipHead(f *testing.F) {
	f.Add(gzipped(f, bytes.Repeat([]byte("text "), 100), "n", "c", []byte{1, 2, 0, 0}))
	f.Add(gzipped(f, []byte("short"), "", "", nil))
	f.Fuzz(func(t *testing.T, z []byte) {
		got := gunzipHead(z)
		want, err := stdHead(z)
		// klauspost decodes ahead of what it returns, so it may refuse
		// a stream for corruption past the head: then only the bytes
		// it gave are compared.
		if len(got) > HeadSize || len(got) == HeadSize && !bytes.HasPrefix(got, want) {
			t.Fatalf("gunzipHead(%x) = %x, klauspost/gzip %x (%v)", z, got, want, err)
		}
		// Where the standard library (RFC 1951's reading; klauspost
		// also inflates some streams with an empty literal code) reads
		// a full head, so does gunzipHead. compress/gzip alone accepts
		// reserved flag bits.
		if len(z) > 3 && z[3]>>5 == 0 {
			if all, err := stdlibHead(z); err == nil && len(all) == HeadSize && !bytes.Equal(got, all) {
				t.Fatalf("gunzipHead(%x) = %x, compress/gzip reads %x", z, got, all)
			}
		}
	})
}

// stdlibHead is the head compress/gzip reads from the first member.
func stdlibHead(z []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	r.Multistream(false)
	out := make([]byte, HeadSize)
	n, err := io.ReadFull(r, out)
	return out[:n], err
}

// inflateHead returns the first n bytes the raw DEFLATE stream z inflates
// to (all of them when there are fewer). A stream that z holds only the
// start of, too little for n bytes, is io.ErrUnexpectedEOF.
func inflateHead(z []byte, n int) ([]byte, error) {
	var hi headInflater
	return hi.head(z, n)
}
