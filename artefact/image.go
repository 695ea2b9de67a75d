package artefact

// Container images. An image is a stack of layers, each a tar (gzip- or
// zstd-compressed, or not) applied over the ones before: a later file
// replaces an earlier one, ".wh.NAME" deletes NAME, ".wh..wh..opq" empties
// its directory of what earlier layers put there, and a file replacing a
// directory hides everything under it.
//
// The layers are read once each, from the last to the first, so nothing
// is extracted and nothing is held but names: an entry is visible when no
// later layer has the same path, deleted it or hid one of its ancestors.
// Two layouts are read: an OCI image layout (a directory, or a tar of one)
// and the tarball `docker save` writes (manifest.json naming layer tars).
// The standard library's tar and JSON are all they need, so
// go-containerregistry, with its registry client and dependencies, is
// not used.

import (
	"archive/tar"
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strings"

	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/lazyre"
)

// blobs opens the files of an image by their path in the layout.
type blobs interface {
	open(name string) (io.ReadCloser, error)
}

type dirBlobs string

func (d dirBlobs) open(name string) (io.ReadCloser, error) {
	// A manifest names its layers: one naming ../../etc/shadow must not
	// make the reader leave the layout.
	clean, err := cleanName(name)
	if err != nil {
		return nil, err
	}
	// Every component is resolved inside the layout (openat2
	// RESOLVE_BENEATH, or a walk with O_NOFOLLOW): a blobs/ or
	// blobs/sha256/ that is a link out of the layout is not followed,
	// nor a blob that is a link; O_NONBLOCK: a FIFO swapped in does not
	// block the open.
	f, err := input.OpenBeneath(string(d), strings.TrimPrefix(clean, "/"))
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, &input.FileError{Path: name, Err: errors.New("not a regular file")}
	}
	return f, nil
}

type tarBlobs struct {
	r     io.ReaderAt
	index map[string]*io.SectionReader
}

func (t tarBlobs) open(name string) (io.ReadCloser, error) {
	s, ok := t.index[path.Clean("/"+name)]
	if !ok {
		return nil, &input.FileError{Path: name, Err: os.ErrNotExist}
	}
	return io.NopCloser(io.NewSectionReader(s, 0, s.Size())), nil
}

// tarFile reads an uncompressed tar held by r: an image when it holds a
// docker-save manifest.json or an OCI layout, else a plain tar whose
// unwanted members are skipped by seeking.
func (w *walker) tarFile(prefix string, r io.ReaderAt, size int64, depth int) error {
	if idx := indexTar(r, size); idx != nil {
		b := tarBlobs{r: r, index: idx}
		if _, ok := idx["/manifest.json"]; ok {
			return w.imageLayers(prefix, b, depth)
		}
		if _, ok := idx["/index.json"]; ok {
			if _, ok := idx["/oci-layout"]; ok {
				return w.imageLayers(prefix, b, depth)
			}
		}
	}
	return w.tarStream(prefix, io.NewSectionReader(r, 0, size), depth)
}

// indexTar lists where the data of the regular files near the top of a
// tar are (the only places an image keeps its manifests and blobs), or
// nil when the tar cannot be indexed.
func indexTar(r io.ReaderAt, size int64) map[string]*io.SectionReader {
	sr := io.NewSectionReader(r, 0, size)
	tr := tar.NewReader(sr)
	idx := map[string]*io.SectionReader{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return idx
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return nil
		}
		if h.Typeflag != tar.TypeReg || strings.Count(strings.Trim(h.Name, "/"), "/") > 2 {
			continue
		}
		name, err := cleanName(h.Name)
		if err != nil {
			continue
		}
		off, _ := sr.Seek(0, io.SeekCurrent)
		idx[name] = io.NewSectionReader(r, off, h.Size)
		if len(idx) > 1<<16 {
			return nil // not an image: too many files near the top
		}
	}
}

// layout reads an OCI image layout directory.
func (w *walker) layout(dir string) error {
	var b blobs = dirBlobs(dir)
	if w.opt.Progress != nil {
		b = countingBlobs{b, &w.read}
	}
	return w.imageLayers("", b, 0)
}

type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Platform  *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
	Annotations map[string]string `json:"annotations"`
}

var digestRE = lazyre.New(`^([a-z0-9]+(?:[+._-][a-z0-9]+)*):([a-fA-F0-9]{32,})$`)

func blobPath(digest string) (string, error) {
	m := digestRE().FindStringSubmatch(digest)
	if m == nil {
		return "", fmt.Errorf("%w: bad digest %q", ErrFormat, shownName(digest))
	}
	return "blobs/" + m[1] + "/" + m[2], nil
}

func readJSON(b blobs, name string, v any) error {
	rc, err := b.open(name)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFormat, err) // errors.Is(err, fs.ErrNotExist) for a missing one
	}
	defer rc.Close()
	if err := json.NewDecoder(io.LimitReader(rc, 16<<20)).Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	return nil
}

// layerNames finds the layers of the image, bottom first, and the path
// of its configuration ("" when the manifest names none).
func layerNames(b blobs) ([]string, string, error) {
	var docker []struct {
		Config string
		Layers []string
	}
	if err := readJSON(b, "manifest.json", &docker); err == nil {
		if len(docker) == 0 {
			return nil, "", fmt.Errorf("%w: manifest.json names no image", ErrFormat)
		}
		// A tarball of several images: the first is read.
		return docker[0].Layers, docker[0].Config, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, "", err
	}
	var index struct{ Manifests []descriptor }
	if err := readJSON(b, "index.json", &index); err != nil {
		return nil, "", err
	}
	for range 4 { // an index may point to an index
		d, err := pickManifest(index.Manifests)
		if err != nil {
			return nil, "", err
		}
		p, err := blobPath(d.Digest)
		if err != nil {
			return nil, "", err
		}
		var m struct {
			Manifests []descriptor
			Config    descriptor
			Layers    []descriptor
		}
		if err := readJSON(b, p, &m); err != nil {
			return nil, "", err
		}
		if len(m.Manifests) > 0 {
			index.Manifests = m.Manifests
			continue
		}
		var names []string
		for _, l := range m.Layers {
			p, err := blobPath(l.Digest)
			if err != nil {
				return nil, "", err
			}
			names = append(names, p)
		}
		cfg, _ := blobPath(m.Config.Digest)
		return names, cfg, nil
	}
	return nil, "", fmt.Errorf("%w: image indexes nested too deep", ErrFormat)
}

// pickManifest chooses the image of this machine's architecture when an
// index holds several, else the first (attestations are not images).
func pickManifest(ds []descriptor) (descriptor, error) {
	var cands []descriptor
	for _, d := range ds {
		if d.Annotations["vnd.docker.reference.type"] == "attestation-manifest" {
			continue
		}
		cands = append(cands, d)
	}
	if len(cands) == 0 {
		return descriptor{}, fmt.Errorf("%w: index.json names no image", ErrFormat)
	}
	for _, d := range cands {
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == runtime.GOARCH {
			return d, nil
		}
	}
	return cands[0], nil
}

// maxImageLayers bounds the layers a manifest may name: the kernel's
// overlayfs stacks at most 500 (OVL_MAX_STACK), and each name, a few
// bytes of JSON, costs a blob's opening and reading.
const maxImageLayers = 1024

// imageLayers applies the layers of an image, top first.
func (w *walker) imageLayers(prefix string, b blobs, depth int) error {
	layers, cfg, err := layerNames(b)
	if err != nil {
		return err
	}
	if len(layers) > maxImageLayers {
		return fmt.Errorf("%w: the manifest names %d layers, more than %d", ErrFormat, len(layers), maxImageLayers)
	}
	for i, l := range layers {
		if len(l) >= pathMax {
			return longName(fmt.Sprintf("layer %d's name", i+1), len(l))
		}
	}
	if w.view != nil && cfg != "" {
		// The configuration is optional to what is read: one that
		// cannot be read leaves the environment unknown.
		var c struct{ Config struct{ Env []string } }
		if readJSON(b, cfg, &c) == nil {
			w.view.Env = c.Config.Env
		}
	}
	saved := w.image
	w.image = true
	defer func() { w.image = saved }()
	ov := newOverlay()
	for i := len(layers) - 1; i >= 0; i-- {
		lerr := w.layer(prefix, b, layers[i], ov, depth)
		var s stop
		if errors.As(lerr, &s) || errors.Is(lerr, ErrBomb) {
			return lerr
		}
		if errors.Is(lerr, errWhiteout) {
			return fmt.Errorf("layer %d %s: %w", i+1, layers[i], lerr)
		}
		if lerr != nil {
			m := &Member{Name: fmt.Sprintf("%s[layer %d %s]", prefix, i+1, layers[i]), Err: fmt.Errorf("%w; the files it would hide or delete may be reported", lerr)}
			if err := w.emit(m); err != nil {
				return err
			}
		}
		ov.endLayer()
	}
	return nil
}

// layer reads one layer's tar and emits its visible regular files.
//
// A hard link keeps its content when a later layer deletes or replaces
// the other name, as it does in a running container (the link shares the
// inode). A visible link whose target this layer holds but a later layer
// hid is found in the pass; the layer is then read again for those
// targets only, and each is emitted under its link's name (the View
// names the link a regular file).
func (w *walker) layer(prefix string, b blobs, name string, ov *overlay, depth int) error {
	hiddenReg := map[string]bool{}
	need := map[string][]string{} // a hidden target: the visible links to it
	err := w.layerPass(b, name, prefix, func(e tarEntry, data io.Reader) error {
		if e.name == "/" {
			// "./", "usr/..": the root itself, which a layer does not
			// replace (containerd ignores it, "resolved to root"). Read
			// as a file over a directory, it hid every lower layer.
			return nil
		}
		dir, base := path.Split(e.name)
		dir = path.Clean(dir)
		switch {
		case base == ".wh..wh..opq":
			ov.hide(dir)
			return nil
		case strings.HasPrefix(base, ".wh."):
			if err := whiteoutOK(e.name, base[4:]); err != nil {
				return err
			}
			gone := path.Join(dir, base[4:])
			ov.hide(gone)
			ov.cover(gone)
			return nil
		}
		if !ov.visible(e.name) {
			if e.typ == tar.TypeReg || e.typ == '\x00' {
				hiddenReg[e.name] = true
			}
			return nil
		}
		ov.cover(e.name)
		if e.typ != tar.TypeDir {
			ov.hide(e.name) // a file over a directory hides its content
		}
		if w.view != nil {
			w.view.add(e)
		}
		if e.typ == tar.TypeLink {
			if t, err := cleanName(e.link); err == nil && hiddenReg[t] {
				need[t] = append(need[t], e.name)
			}
		}
		if e.typ != tar.TypeReg && e.typ != '\x00' {
			return nil
		}
		return w.regular(prefix, e.name, e.mode, e.size, data, depth)
	})
	if err != nil || len(need) == 0 {
		return err
	}
	w.replayKeep = map[string]bool{}
	for _, links := range need {
		w.replayKeep[prefix+links[0]] = true
	}
	defer func() { w.replayKeep = nil }()
	return w.layerPass(b, name, prefix, func(e tarEntry, data io.Reader) error {
		links, ok := need[e.name]
		if !ok || (e.typ != tar.TypeReg && e.typ != '\x00') {
			return nil
		}
		delete(need, e.name)
		if w.view != nil {
			w.view.Entries[links[0]] = Entry{Size: e.size}
			for _, l := range links[1:] {
				w.view.Entries[l] = Entry{Link: links[0], Size: e.size}
			}
		}
		return w.regular(prefix, links[0], e.mode, e.size, data, depth)
	})
}

// errWhiteout marks a whiteout that names no file of its directory: the
// image is refused, not read as if the layer were whole.
var errWhiteout = errors.New("an invalid whiteout")

// whiteoutOK refuses a whiteout (".wh.NAME", at name) whose NAME is no
// file of its directory: ".wh.." would delete the directory itself,
// ".wh..." its parent, and ".wh." names nothing. Read as deletions, they
// hid a whole /usr/lib, and bind --image reported a false "libc.so.6 not
// found"; containerd's apply refuses such a layer ("invalid whiteout
// name": the deleted path must be under the whiteout's directory), and
// so does the reader. ".wh..wh..opq", the opaque marker, is matched before.
func whiteoutOK(name, gone string) error {
	if gone != "" && gone != "." && gone != ".." {
		return nil
	}
	what := map[string]string{"": "names no file", ".": "would delete its own directory", "..": "would delete the directory above its own"}[gone]
	return fmt.Errorf("%w: %w: %s %s (containerd refuses such a layer)", ErrFormat, errWhiteout, name, what)
}

// layerPass opens a layer, decompresses it and calls each for its entries.
func (w *walker) layerPass(b blobs, name, prefix string, each func(e tarEntry, data io.Reader) error) error {
	rc, err := b.open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: the manifest names a missing blob", ErrFormat)
		}
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	head, _ := br.Peek(HeadSize)
	var in io.Reader
	switch f := Detect(head); f {
	case Tar:
		// Charged like a decompressed layer: a manifest may name one
		// layer many times.
		in = &counted{r: br, w: w}
	case Gzip, Zstd, XZ, Bzip2:
		dr, closer, err := w.decompressor(f, br)
		if err != nil {
			return decoderErr(f, err)
		}
		defer closer()
		in = dr
	default:
		if len(head) == 0 {
			return nil // an empty layer
		}
		return fmt.Errorf("%w: a layer that is not a tar", ErrFormat)
	}
	return w.tarEntries(prefix, in, each)
}

// overlay remembers what the layers read so far (the upper ones) put
// over the lower ones. Marks made while reading a layer take effect for
// the layers under it only.
type overlay struct {
	covered, hidden       map[string]bool // paths present above; trees hidden from below
	newCovered, newHidden map[string]bool
}

func newOverlay() *overlay {
	return &overlay{covered: map[string]bool{}, hidden: map[string]bool{}, newCovered: map[string]bool{}, newHidden: map[string]bool{}}
}

func (o *overlay) cover(p string) { o.newCovered[p] = true }
func (o *overlay) hide(p string)  { o.newHidden[p] = true }

func (o *overlay) visible(p string) bool {
	if o.covered[p] {
		return false
	}
	for a := p; ; a = path.Dir(a) {
		if o.hidden[a] {
			return false
		}
		if a == "/" {
			return true
		}
	}
}

func (o *overlay) endLayer() {
	for p := range o.newCovered {
		o.covered[p] = true
	}
	for p := range o.newHidden {
		o.hidden[p] = true
	}
	clear(o.newCovered)
	clear(o.newHidden)
}
