package bind

import (
	"context"
	"os"
	"strings"
	"testing"
)

// BenchmarkAuditUsrBin audits /usr/bin (or the colon-separated
// BIND_BENCH_DIRS) with a fresh Auditor each time, so every library is
// parsed once per iteration.
func BenchmarkAuditUsrBin(b *testing.B) {
	dirs := []string{"/usr/bin"}
	if d := os.Getenv("BIND_BENCH_DIRS"); d != "" {
		dirs = strings.Split(d, ":")
	}
	for i := 0; i < b.N; i++ {
		a := New(Options{})
		res := a.Audit(context.Background(), dirs)
		b.ReportMetric(float64(len(res.Files)), "files")
		b.ReportMetric(float64(a.Parsed()), "parsed")
	}
}

// BenchmarkLookup is the hot path of resolution: one name looked up in a
// large library (libc), hit and miss.
func BenchmarkLookup(b *testing.B) {
	o, err := openObject("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		if !o.provides("malloc", "GLIBC_2.2.5") || o.provides("nvmlInit_v2", "") {
			b.Fatal("lookup")
		}
	}
}

// BenchmarkParseLibc is the cost of reading one large library once.
func BenchmarkParseLibc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := openObject("/lib/x86_64-linux-gnu/libc.so.6"); err != nil {
			b.Skip(err)
		}
	}
}

// BenchmarkScopeLookup is the hot path of resolution: every reference of
// a program (/usr/bin/ls, or BIND_BENCH_PROGRAM) looked up in its global
// scope, through each library's DT_GNU_HASH ("hash") and through a map of
// every definition, as before ("map").
func BenchmarkScopeLookup(b *testing.B) {
	p := "/usr/bin/ls"
	if e := os.Getenv("BIND_BENCH_PROGRAM"); e != "" {
		p = e
	}
	a := New(Options{})
	o, err := a.target(p, nil, make([]byte, headSize))
	if err != nil {
		b.Skip(err)
	}
	hashed := a.loadOrder(context.Background(), &loaded{obj: o, name: p, origin: a.origin(p)})
	mapped := &scope{}
	for _, l := range hashed.list {
		m := l.obj
		if m.gnu != nil {
			m = mapIndexed(b, l.name)
		}
		mapped.list = append(mapped.list, &loaded{obj: m, name: l.name})
	}
	var refs []reference
	for _, l := range hashed.list {
		refs = append(refs, l.obj.refs...)
	}
	for _, c := range []struct {
		name string
		sc   *scope
	}{{"hash", hashed}, {"map", mapped}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				for _, r := range refs {
					c.sc.provides(r.Name, r.Version)
				}
			}
			b.ReportMetric(float64(len(refs)*len(c.sc.list)), "lookups/op")
		})
	}
}

// BenchmarkAuditCycle audits 1,000 programs in one DT_NEEDED cycle
// (issue 28, item 13): each search once per run.
func BenchmarkAuditCycle(b *testing.B) {
	root := cycleRoot(b, 1000, func(int) string { return "$ORIGIN" })
	for range b.N {
		a := New(Options{Sysroot: root})
		a.Audit(context.Background(), []string{root + "/usr/lib"})
		b.ReportMetric(float64(a.searches.Load()), "searches/op")
	}
}

// BenchmarkOneFile is the loader's view of one small program, named
// alone (a compiler wrapper's loader proof of its output): through
// Audit's walker and workers, and read on the caller's goroutine
// (AuditFile). The Auditor keeps the libraries it read, as the proof's
// does across its preload.
func BenchmarkOneFile(b *testing.B) {
	const prog = "/usr/bin/true"
	if _, err := os.Stat(prog); err != nil {
		b.Skip("no " + prog)
	}
	ctx := context.Background()
	a := New(Options{Workers: 1})
	b.Run("Audit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a.Audit(ctx, []string{prog})
		}
	})
	b.Run("AuditFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a.AuditFile(ctx, prog)
		}
	})
}
