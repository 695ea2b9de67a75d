package artefact

import (
	"archive/zip"
	"sync"

	"errors"
	"fmt"
	"github.com/klauspost/compress/flate"
	"io"
	"io/fs"
	"math"
)

// zip reads a zip archive (a wheel, a jar, a .conda) through its central
// directory: only the members selected or nested are decompressed.
func (w *walker) zip(prefix string, r io.ReaderAt, size int64, depth int) error {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fmt.Errorf("%w: zip: %v", ErrFormat, err)
	}
	// Every member's head is inflated to tell ELF files from the rest
	// (a jar holds thousands of classes): klauspost's inflater, pooled,
	// starts faster than the standard library's.
	zr.RegisterDecompressor(zip.Deflate, newInflater)
	for _, f := range zr.File {
		name, nerr := cleanName(f.Name)
		mode := f.Mode()
		if nerr != nil {
			if !mode.IsDir() {
				if err := w.emit(&Member{Name: prefix + f.Name, Err: nerr}); err != nil {
					return err
				}
			}
			continue
		}
		if mode&fs.ModeSymlink != 0 {
			if err := w.zipLink(prefix, name, f); err != nil {
				return err
			}
			continue
		}
		if !mode.IsRegular() {
			continue
		}
		usize := f.UncompressedSize64
		if usize > math.MaxInt64 {
			usize = math.MaxInt64
		}
		rc, err := f.Open()
		if err != nil {
			if err := w.emit(&Member{Name: prefix + name, Size: int64(usize), Err: fmt.Errorf("%w: %v", ErrFormat, err)}); err != nil {
				return err
			}
			continue
		}
		err = w.regular(prefix, name, mode, int64(usize), &counted{r: rc, w: w}, depth)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// zipLink checks a symbolic link member (its target is its content).
func (w *walker) zipLink(prefix, name string, f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return w.emit(&Member{Name: prefix + name, Err: fmt.Errorf("%w: %v", ErrFormat, err)})
	}
	defer rc.Close()
	t, err := io.ReadAll(io.LimitReader(rc, 4096))
	if err != nil {
		return w.emit(&Member{Name: prefix + name, Err: readErr(err)})
	}
	if !linkInside(name, string(t)) {
		return w.emit(&Member{Name: prefix + name, Err: fmt.Errorf("%w: -> %s", ErrLinkOut, t)})
	}
	return nil
}

var inflaters sync.Pool

type inflater struct{ io.ReadCloser }

func (f *inflater) Close() error {
	if f.ReadCloser != nil {
		inflaters.Put(f.ReadCloser)
		f.ReadCloser = nil
	}
	return nil
}

func newInflater(r io.Reader) io.ReadCloser {
	if z, ok := inflaters.Get().(io.ReadCloser); ok {
		if z.(flate.Resetter).Reset(r, nil) == nil {
			return &inflater{z}
		}
	}
	return &inflater{flate.NewReader(r)}
}
