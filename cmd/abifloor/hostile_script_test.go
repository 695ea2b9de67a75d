package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Small inputs that cost much (issue 28 items 8–10), built at test time
// from a real program or package.
func init() {
	// cutmembers OUT.tar.gz N FILE writes a gzipped tar of N members, each
	// FILE's first 100 bytes (an ELF file's, a truncated ELF member).
	scriptCmds["cutmembers"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: cutmembers OUT.tar.gz N FILE")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		b := readHead(ts, args[2], 100)
		writeTarGz(ts, args[0], n, func(i int) (string, []byte) { return fmt.Sprintf("lib/x%06d.so", i), b })
	}
	// longnames OUT.tar.gz N FILE writes a gzipped tar of N members with
	// names of 1 MB (PAX records), each FILE's first 4 KiB.
	scriptCmds["longnames"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: longnames OUT.tar.gz N FILE")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		b := readHead(ts, args[2], 4096)
		long := strings.Repeat("a", 1<<20-1024)
		writeTarGz(ts, args[0], n, func(i int) (string, []byte) { return fmt.Sprintf("d%03d/%s", i, long), b })
	}
	// rpmclaim OUT.rpm.gz IN.rpm writes IN.rpm with the count of its
	// Requires names (tag 1049) set to 2³²−1 and 64 MiB of zeros added to
	// its main header's store, gzipped: the attack of item 8.
	scriptCmds["rpmclaim"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: rpmclaim OUT.rpm.gz IN.rpm")
		}
		b, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		be := binary.BigEndian
		off := 96 + 16 + 16*int(be.Uint32(b[96+8:])) + int(be.Uint32(b[96+12:]))
		off += (8 - off%8) % 8
		n, size := int(be.Uint32(b[off+8:])), int(be.Uint32(b[off+12:]))
		out := bytes.Clone(b)
		for i := range n {
			if e := out[off+16+16*i:]; be.Uint32(e) == 1049 {
				be.PutUint32(e[12:], 1<<32-1)
			}
		}
		pad := 64<<20 - 64<<10
		be.PutUint32(out[off+12:], uint32(size+pad))
		end := off + 16 + 16*n + size
		out = append(append(out[:end:end], make([]byte, pad)...), b[end:]...)
		f, err := os.Create(ts.MkAbs(args[0]))
		ts.Check(err)
		zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
		zw.Write(out)
		ts.Check(zw.Close())
		ts.Check(f.Close())
	}
	// maxratio FILE INPUT N fails when FILE is more than N times as large
	// as INPUT: a command's output held to its input's size.
	scriptCmds["maxratio"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: maxratio FILE INPUT N")
		}
		out, err := os.Stat(ts.MkAbs(args[0]))
		ts.Check(err)
		in, err := os.Stat(ts.MkAbs(args[1]))
		ts.Check(err)
		n, err := strconv.ParseInt(args[2], 10, 64)
		ts.Check(err)
		ts.Logf("%s: %d bytes, %.1f times %s's %d", args[0], out.Size(), float64(out.Size())/float64(in.Size()), args[1], in.Size())
		if out.Size() > n*in.Size() {
			ts.Fatalf("%s: %d bytes, more than %d times %s's %d", args[0], out.Size(), n, args[1], in.Size())
		}
	}
}

func readHead(ts *testscript.TestScript, name string, n int) []byte {
	b, err := os.ReadFile(ts.MkAbs(name))
	ts.Check(err)
	if len(b) < n {
		ts.Fatalf("%s: %d bytes, fewer than %d", name, len(b), n)
	}
	return b[:n]
}

func writeTarGz(ts *testscript.TestScript, name string, n int, member func(int) (string, []byte)) {
	f, err := os.Create(ts.MkAbs(name))
	ts.Check(err)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for i := range n {
		name, data := member(i)
		ts.Check(tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}))
		_, err := tw.Write(data)
		ts.Check(err)
	}
	ts.Check(tw.Close())
	ts.Check(zw.Close())
	ts.Check(f.Close())
}
