package ranges

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkLookup looks versions up in a table of 200 versions in 14
// ranges, half of them observed and half inferred or in gaps. Goal: ≤ 1 µs.
func BenchmarkLookup(b *testing.B) {
	var vs []Version
	fps := []string{"a", "b", "a", "c", "d", "c", "a"}
	for i := 0; i < 200; i++ {
		vs = append(vs, Version{Name: fmt.Sprintf("5%02d.%d.%02d", 35+i/20, i%20, i%7), Fingerprint: fps[(i/13)%len(fps)]})
	}
	tab, err := New(nil, vs)
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{"535.0.00", "537.4.01", "538.18.99", "541.9.03", "544.19.03", "560.1", "520.5", "540.3.05"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tab.Lookup(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
	}
}

// benchHeader is a header like NVIDIA's control headers: comments,
// #defines, a few #includes and structs, n lines.
func benchHeader(n int) []byte {
	var b bytes.Buffer
	b.WriteString("/*\n * SPDX-License-Identifier: MIT\n */\n#pragma once\n#include \"nvtypes.h\"\n#include \"ctrl/ctrl2080/ctrl2080base.h\"\n")
	for i := 0; b.Len() < n*40; i++ {
		fmt.Fprintf(&b, "#define NV2080_CTRL_CMD_X_%d (0x20801%03x) /* finn: Evaluated from \"(FINN_NV20_SUBDEVICE_0_X_INTERFACE_ID << 8) | 0x%x\" */\n", i, i, i)
		fmt.Fprintf(&b, "typedef struct NV2080_CTRL_X_%d_PARAMS {\n    NvU32 flags;\n    NV_DECLARE_ALIGNED(NvU64 data, 8); // a comment\n} NV2080_CTRL_X_%d_PARAMS;\n\n", i, i)
	}
	return b.Bytes()
}

// BenchmarkScanDirectives reads the directives of a 64 KB header, as the
// tree check does once per distinct file; "before" is the reader as it
// was (a slice per line, every byte of a line through skip).
func BenchmarkScanDirectives(b *testing.B) {
	h := benchHeader(64 << 10 / 40)
	b.Run("now", func(b *testing.B) {
		b.SetBytes(int64(len(h)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := scanDirectives(bytes.NewReader(h)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("before", func(b *testing.B) {
		b.SetBytes(int64(len(h)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			br := bufio.NewReaderSize(bytes.NewReader(h), 64<<10)
			comment := false
			for {
				line, err := logicalLine(br, nil)
				if len(line) > 0 {
					_, comment = directiveRef(line, comment)
				}
				if err != nil {
					break
				}
			}
		}
	})
}

// BenchmarkExport unpacks and checks 20 versions of a repository of 400
// headers (16 KB each) in which each version changes one header, as
// NVIDIA's tags do: per version, the tree is made of hard links to the
// blobs the versions before it read, and checked from their directives.
func BenchmarkExport(b *testing.B) {
	needTools(b, "git")
	steps := []step{{tags: []string{"1.0"}, files: map[string]string{}}}
	h := string(benchHeader(16 << 10 / 40))
	for i := 0; i < 400; i++ {
		steps[0].files[fmt.Sprintf("inc/ctrl/h%03d.h", i)] = h + fmt.Sprintf("struct s%d { int a; };\n", i)
	}
	for v := 1; v < 20; v++ {
		steps = append(steps, step{tags: []string{fmt.Sprintf("1.%d", v)}, files: map[string]string{
			fmt.Sprintf("inc/ctrl/h%03d.h", v): h + fmt.Sprintf("struct s%d { long a; };\n", v),
		}})
	}
	repo := gitRepo(b, steps)
	ins, err := GitTags(context.Background(), repo, `^1\.`)
	if err != nil {
		b.Fatal(err)
	}
	incs := []string{"inc"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bl := &Builder{Options: Options{Includes: incs}}
		bl.prefetch(context.Background(), ins)
		o, err := newObjects()
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range ins {
			dir, _, release, err := o.export(context.Background(), repo, bl.trees[repo+"\x00"+in.Rev])
			if err != nil {
				b.Fatal(err)
			}
			t, err := newTree(dir, incs)
			if err == nil {
				t.known = o.known
				err = t.check(incs, nil)
			}
			if err != nil {
				b.Fatal(err)
			}
			release()
		}
		o.remove()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ins)), "µs/version")
}
