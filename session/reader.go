package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Torn describes a last line without its terminating newline: the bytes a
// crash left mid-append. It is reported and ignored, never fatal.
type Torn struct {
	Offset int64 `json:"offset"`
	Bytes  int64 `json:"bytes"`
}

// LineReader yields complete lines of any length. The returned slice is
// valid until the next call.
type LineReader struct {
	br   *bufio.Reader
	buf  []byte
	off  int64
	line int
}

// NewLineReader reads r, whose first byte is at offset off and whose first
// line has number line (1-based).
func NewLineReader(r io.Reader, off int64, line int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 1<<16), off: off, line: line - 1}
}

// Next returns the next complete line without its '\n', its byte offset and
// line number. At the end it returns io.EOF, or a *Torn-carrying error
// (ErrTornTail) when bytes follow the last newline.
func (lr *LineReader) Next() (line []byte, off int64, num int, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			lr.buf = append(lr.buf, chunk...)
			continue
		}
		var data []byte
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			data = lr.buf
		} else {
			data = chunk
		}
		if err == io.EOF {
			if len(data) == 0 {
				return nil, lr.off, lr.line + 1, io.EOF
			}
			// Keep the torn bytes' position: the caller reports them.
			t := &TornTailError{Torn: Torn{Offset: lr.off, Bytes: int64(len(data))}}
			return data, lr.off, lr.line + 1, t
		}
		if err != nil {
			return nil, lr.off, lr.line + 1, err
		}
		off = lr.off
		lr.off += int64(len(data))
		lr.line++
		return data[:len(data)-1], off, lr.line, nil
	}
}

// Offset is the offset just after the last complete line returned.
func (lr *LineReader) Offset() int64 { return lr.off }

// TornTailError is returned by LineReader.Next for a last line without '\n'.
type TornTailError struct{ Torn Torn }

func (e *TornTailError) Error() string {
	return fmt.Sprintf("torn tail: %d bytes at offset %d without a newline", e.Torn.Bytes, e.Torn.Offset)
}

// ScanResult is what a scan of a log saw.
type ScanResult struct {
	Events  int   `json:"events"`
	LastSeq int64 `json:"lastSeq"`
	// End is the offset just past the last complete line.
	End  int64 `json:"end"`
	Torn *Torn `json:"torn,omitempty"`
}

// ScanFrom is where a scan starts: a byte offset that begins a line, the
// number of that line and the seq the line must carry. The zero value is
// the start of the file.
type ScanFrom struct {
	Offset  int64
	Line    int
	NextSeq int64
}

// Scan decodes every complete line of r, checks the seq chain and calls fn
// with the event, its raw bytes (valid only during the call) and its offset.
// A bad line in the middle is a *CorruptError naming path, line and offset; a
// torn last line is reported in the result, not as an error.
func Scan(r io.Reader, path string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error) {
	if from.Line == 0 {
		from.Line = 1
	}
	if from.NextSeq == 0 {
		from.NextSeq = 1
	}
	lr := NewLineReader(r, from.Offset, from.Line)
	res := ScanResult{End: from.Offset, LastSeq: from.NextSeq - 1}
	want := from.NextSeq
	var ev Event
	for {
		line, off, num, err := lr.Next()
		if err == io.EOF {
			return res, nil
		}
		var torn *TornTailError
		if errors.As(err, &torn) {
			res.Torn = &torn.Torn
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("session: reading %s at byte offset %d: %w", path, off, err)
		}
		ev = Event{}
		if err := decodeLine(line, &ev); err != nil {
			return res, &CorruptError{Path: path, Line: num, Offset: off, Err: err}
		}
		if ev.Seq != want {
			return res, &SeqError{Path: path, Line: num, Offset: off, Want: want, Got: ev.Seq}
		}
		want++
		res.Events++
		res.LastSeq = ev.Seq
		res.End = lr.Offset()
		if fn != nil {
			if err := fn(&ev, line, off); err != nil {
				return res, err
			}
		}
	}
}

// Encode renders one event as its log line, '\n' included.
// HTML characters are not escaped, so a tool input keeps its bytes.
func Encode(ev *Event) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil { // Encode appends the '\n'
		return nil, err
	}
	return buf.Bytes(), nil
}

var errEOF = io.EOF
