package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/graft-project/graft/vfs"
)

// endsAt reports whether the log in f is exactly as the caller's scan left
// it: its size is after.End and its last complete line carries after.LastSeq.
// It reads only the last line. A log that is merely longer or torn returns
// false (the caller folds it again); a log whose last line is another seq at
// the same size was rewritten, and that is ErrChanged.
func endsAt(fsys vfs.FS, f vfs.File, path string, after ScanResult) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("session: stat %s: %w", path, err)
	}
	if after.Torn != nil || fi.Size() != after.End {
		return false, nil
	}
	if after.End == 0 {
		return after.LastSeq == 0, nil
	}
	// f is the append handle (write-only): read through a handle of its own.
	r, err := fsys.Open(path)
	if err != nil {
		return false, translate(path, err)
	}
	line, err := lastLine(r, after.End)
	if cerr := r.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("session: reading the last line of %s: %w", path, err)
	}
	seq, ok := seqPrefix(line)
	if !ok {
		var ev Event
		if err := decodeLine(line, &ev); err != nil {
			return false, &CorruptError{Path: path, Offset: after.End - int64(len(line)) - 1, Err: err}
		}
		seq = ev.Seq
	}
	if seq != after.LastSeq {
		return false, fmt.Errorf("%w: %s ends on seq %d at byte %d, the caller read it ending on seq %d", ErrChanged, path, seq, after.End, after.LastSeq)
	}
	return true, nil
}

// lastLine returns the line that ends at end (the '\n' at end-1 excluded),
// reading backwards in chunks: a last line of many MiB costs its own size,
// never the whole log.
func lastLine(f io.ReaderAt, end int64) ([]byte, error) {
	const chunk = 64 << 10
	var tail []byte
	pos := end
	for pos > 0 {
		n := int64(chunk)
		if n > pos {
			n = pos
		}
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, pos-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		pos -= n
		tail = append(buf, tail...)
		if len(tail) == 0 || tail[len(tail)-1] != '\n' {
			return nil, fmt.Errorf("byte %d is not the end of a line", end)
		}
		if i := bytes.LastIndexByte(tail[:len(tail)-1], '\n'); i >= 0 {
			return tail[i+1 : len(tail)-1], nil
		}
	}
	return tail[:len(tail)-1], nil
}

// seqPrefix reads N from a line that starts with {"seq":N, — the shape
// Encode writes. ok is false for any other shape.
func seqPrefix(line []byte) (int64, bool) {
	const p = `{"seq":`
	if !bytes.HasPrefix(line, []byte(p)) {
		return 0, false
	}
	rest := line[len(p):]
	i := bytes.IndexByte(rest, ',')
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	return n, err == nil
}
