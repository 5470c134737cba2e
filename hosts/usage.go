package hosts

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
)

// usageTail is how much of a transcript's end ContextTokens reads: the last
// model reply's usage is near the end, and a long tool output after it is
// not read whole.
const usageTail = 1 << 20

// ContextTokens is the context size of a host session's last model
// request, read from the end of its transcript: the last line the host's
// adapter reads a size from (adapter.Adapter.LineTokens). ok is false
// when none is recorded.
func ContextTokens(host Host, path string) (tokens int64, ok bool, err error) {
	a, err := Of(host)
	if err != nil {
		return 0, false, err
	}
	f, fi, err := openTranscript(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	off := max(fi.Size()-usageTail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return 0, false, fmt.Errorf("hosts: reading %s: %w", path, err)
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if off > 0 {
		lines = lines[1:] // cut mid-line
	}
	for k := len(lines) - 1; k >= 0; k-- {
		if n, found := a.LineTokens(lines[k]); found {
			return n, true, nil
		}
	}
	return 0, false, nil
}

// openTranscript opens a host transcript for reading without ever
// blocking: anything but a regular file (a FIFO's open waits for a writer)
// is ErrNoTranscript, checked before the open and again on the open file.
func openTranscript(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoTranscript, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s is not a regular file (%s)", ErrNoTranscript, path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("hosts: opening %s: %w", path, err)
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%w: %s is not a regular file (%s)", ErrNoTranscript, path, fi.Mode().Type())
		}
		return nil, nil, err
	}
	return f, fi, nil
}
