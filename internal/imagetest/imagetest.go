// Package imagetest writes container images for tests: an OCI image
// layout directory, and the same files as a `docker save` tarball.
package imagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Config is the image configuration Write gives every image.
const Config = `{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/bin:/bin"]}}`

// Write writes an OCI image layout of the layers (each a tar, bottom
// first; the first, third, ... stored gzip-compressed, the others plain)
// into dir, and returns its files as a `docker save` tarball too (with a
// manifest.json naming the same blobs).
func Write(t testing.TB, dir string, layers ...[]byte) []byte {
	t.Helper()
	return WriteWith(t, dir, func(i int, l []byte) []byte {
		if i%2 != 0 {
			return l
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(l)
		zw.Close()
		return z.Bytes()
	}, layers...)
}

// WriteWith is Write with each layer stored as compress makes it from
// the layer's index and tar (a zstd --long layer, say).
func WriteWith(t testing.TB, dir string, compress func(i int, layer []byte) []byte, layers ...[]byte) []byte {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	add := func(name string, b []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	put := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		add(name, b)
	}
	blob := func(b []byte) string {
		d := fmt.Sprintf("%x", sha256.Sum256(b))
		put("blobs/sha256/"+d, b)
		return "sha256:" + d
	}
	type desc struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
		Size      int    `json:"size"`
	}
	var ls []desc
	var paths []string
	for i, l := range layers {
		b := compress(i, l)
		d := blob(b)
		ls = append(ls, desc{"application/vnd.oci.image.layer.v1.tar+gzip", d, len(b)})
		paths = append(paths, "blobs/sha256/"+d[7:])
	}
	cfg := blob([]byte(Config))
	man, _ := json.Marshal(map[string]any{"schemaVersion": 2, "config": desc{"application/vnd.oci.image.config.v1+json", cfg, len(Config)}, "layers": ls})
	md := blob(man)
	idx, _ := json.Marshal(map[string]any{"schemaVersion": 2, "manifests": []desc{{"application/vnd.oci.image.manifest.v1+json", md, len(man)}}})
	put("index.json", idx)
	put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`))
	dm, _ := json.Marshal([]map[string]any{{"Config": "blobs/sha256/" + cfg[7:], "Layers": paths}})
	add("manifest.json", dm)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return tb.Bytes()
}
