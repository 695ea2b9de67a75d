package artefact

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sync"

	"github.com/klauspost/compress/flate"
)

// zip reads a zip archive (a wheel, a jar, a .conda) through its central
// directory: only the members selected or nested are decompressed.
func (w *walker) zip(prefix string, r io.ReaderAt, size int64, depth int) error {
	release, err := w.reserve(zipMemory(r, size), "the zip's directory")
	if err != nil {
		return err
	}
	defer release()
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
				if err := w.emit(&Member{Name: prefix + shownName(f.Name), Err: nerr}); err != nil {
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
		if skip, err := w.zipSkip(prefix, name, mode, int64(usize), f); err != nil || skip {
			if err != nil {
				return err
			}
			continue
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

// zipSkip reads a deflated member's head with inflateHead (a few hundred
// bytes decoded, where the inflaters decode up to 32 KiB) and reports,
// skip true, a member that is neither selected, nor an archive to open,
// nor wanted by name: most of a jar. Anything else, a head that would not
// inflate included, is left to the full reader, which says what is wrong.
func (w *walker) zipSkip(prefix, name string, mode fs.FileMode, size int64, f *zip.File) (skip bool, err error) {
	if f.Method != zip.Deflate || w.opt.Want != nil && size <= 1<<20 && w.opt.Want(prefix+name) {
		return false, nil
	}
	raw, err := f.OpenRaw()
	if err != nil {
		return false, nil
	}
	// The head of a deflated member needs its first few hundred
	// compressed bytes (a dynamic block's code lengths, then the
	// symbols), rarely more: read that much, and more only when the
	// stream ran out before the head.
	want := int(min(int64(HeadSize), size))
	csize := min(f.CompressedSize64, math.MaxInt32)
	var head []byte
	for have, k := uint64(0), uint64(1024); ; k *= 8 {
		k = min(k, csize)
		if uint64(cap(w.zbuf)) < k {
			z := make([]byte, k)
			copy(z, w.zbuf[:have])
			w.zbuf = z
		}
		z := w.zbuf[:k]
		if _, err := io.ReadFull(raw, z[have:]); err != nil {
			return false, nil
		}
		have = k
		if head, err = w.heads.head(z, want); err != io.ErrUnexpectedEOF || k == csize || k >= 64<<10 {
			break
		}
	}
	if err != nil || len(head) != want || w.opt.Select(head) || Detect(head) != "" {
		return false, nil
	}
	if !w.charge(int64(len(head))) {
		return false, w.bomb()
	}
	if w.opt.Progress != nil {
		w.progress(prefix + name)
	}
	return true, w.emit(&Member{Name: prefix + name, Size: size, Mode: mode})
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
