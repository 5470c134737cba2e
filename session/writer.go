package session

import (
	"bufio"
	"fmt"
	"time"

	"github.com/graft-project/graft/vfs"
)

// Writer streams events into a new log (O_EXCL); Close fsyncs the file and
// the directory. For generators and importers that write more than fits in
// memory. Seqs are assigned from 1 when zero and checked otherwise.
type Writer struct {
	s    *Store
	f    vfs.File
	bw   *bufio.Writer
	path string
	next int64
	err  error
}

// CreateWriter creates id exclusively and returns a Writer for it.
func (s *Store) CreateWriter(id string) (*Writer, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	path := s.Path(id)
	f, err := s.FS.Create(path, FileMode)
	if err != nil {
		return nil, translate(path, err)
	}
	// Held until Close: an Append meanwhile would take the half-written
	// tail for a torn one and cut it.
	if err := lockNew(f); err != nil {
		return nil, closeAfter(f, err)
	}
	return &Writer{s: s, f: f, bw: bufio.NewWriterSize(f, 1<<20), path: path, next: 1}, nil
}

// Write appends one event; the event's Seq and TS are filled in when zero.
func (w *Writer) Write(ev *Event) error {
	if w.err != nil {
		return w.err
	}
	if ev.Seq == 0 {
		ev.Seq = w.next
	} else if ev.Seq != w.next {
		w.err = &SeqError{Path: w.path, Line: int(w.next), Want: w.next, Got: ev.Seq}
		return w.err
	}
	if ev.TS == "" {
		ev.TS = w.s.Now().UTC().Format(time.RFC3339Nano)
	}
	if err := ev.Validate(); err != nil {
		w.err = fmt.Errorf("%w: seq %d: %v", ErrBadEvent, ev.Seq, err)
		return w.err
	}
	b, err := Encode(ev)
	if err != nil {
		w.err = err
		return err
	}
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("session: writing %s: %w", w.path, err)
		return w.err
	}
	w.next++
	return nil
}

// Events is the number of events written so far.
func (w *Writer) Events() int64 { return w.next - 1 }

// Close flushes, fsyncs the file and its directory. After an error the file
// is left as it is (a partial log a later scan reports), never removed here.
func (w *Writer) Close() error {
	if w.err != nil {
		return closeAfter(w.f, w.err)
	}
	if err := w.bw.Flush(); err != nil {
		return closeAfter(w.f, fmt.Errorf("session: writing %s: %w", w.path, err))
	}
	if err := w.f.Sync(); err != nil {
		return closeAfter(w.f, fmt.Errorf("session: fsync %s: %w", w.path, err))
	}
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", w.path, err)
	}
	if err := w.s.FS.SyncDir(w.s.dir); err != nil {
		return fmt.Errorf("session: fsync directory %s: %w", w.s.dir, err)
	}
	return nil
}
