package artefact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/internal/run"
)

// xz streams are decompressed by the xz program when it is on PATH: it
// runs about three times faster than the pure-Go reader, which stays the
// fallback (and the only reader under Options.NoTools). The program reads
// the stream on its standard input and writes to a pipe: nothing touches
// the disk. It runs through internal/run, so it is bounded (toolTimeout),
// ends with the walk's context, and is killed with its process group.
func toolReader(ctx context.Context, name string, r io.Reader, args ...string) (io.Reader, func(), error) {
	path, err := run.LookPath(name)
	if err != nil {
		return nil, nil, err
	}
	s, err := run.Cmd{Path: path, Name: name, Args: args, Stdin: r, Timeout: toolTimeout}.Stream(ctx)
	if err != nil {
		return nil, nil, err
	}
	t := &tool{name: name, s: s}
	return t, t.close, nil
}

// toolTimeout bounds one decompressor run: xz decompresses about 100 MB
// a second, so this is far beyond any real package.
const toolTimeout = limits.ToolTimeout

type tool struct {
	name   string
	s      *run.Stream
	waited bool
	err    error
}

func (t *tool) Read(p []byte) (int, error) {
	n, err := t.s.Read(p)
	if err == io.EOF && !t.waited {
		t.waited = true
		if werr := t.s.Wait(); werr != nil {
			var re *run.Error
			msg := werr.Error()
			if errors.As(werr, &re) {
				if errors.Is(re.Err, context.Canceled) || errors.Is(re.Err, context.DeadlineExceeded) {
					t.err = re.Err
					return n, t.err
				}
				if re.Stderr != "" {
					msg = re.Stderr
				}
			}
			msg = strings.TrimSpace(msg)
			if strings.Contains(msg, "Unexpected end of input") {
				t.err = fmt.Errorf("%w: %s: %s", ErrTruncated, t.name, msg)
			} else {
				t.err = fmt.Errorf("%w: %s: %s", ErrFormat, t.name, msg)
			}
		}
	}
	if err == io.EOF && t.err != nil {
		return n, t.err
	}
	return n, err
}

// close ends the program (and its process group) when the reading
// stopped early.
func (t *tool) close() {
	if !t.waited {
		t.waited = true
		t.s.Close()
	}
}
