package artefact

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// xz streams are decompressed by the xz program when it is on PATH: it
// runs about three times faster than the pure-Go reader, which stays the
// fallback (and the only reader under Options.NoTools). The program reads
// the stream on its standard input and writes to a pipe: nothing touches
// the disk.
func toolReader(name string, r io.Reader, args ...string) (io.Reader, func(), error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = r
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	t := &tool{name: name, cmd: cmd, out: out, stderr: &stderr}
	return t, t.close, nil
}

type tool struct {
	name   string
	cmd    *exec.Cmd
	out    io.ReadCloser
	stderr *bytes.Buffer
	waited bool
	err    error
}

func (t *tool) Read(p []byte) (int, error) {
	n, err := t.out.Read(p)
	if err == io.EOF && !t.waited {
		t.waited = true
		if werr := t.cmd.Wait(); werr != nil {
			msg := strings.TrimSpace(t.stderr.String())
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

// close ends the program when the reading stopped early.
func (t *tool) close() {
	if !t.waited {
		t.waited = true
		t.cmd.Process.Kill()
		t.cmd.Wait()
	}
}
