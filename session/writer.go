package session

import (
	"bufio"
	"errors"
	"fmt"
	"time"

	"github.com/graft-project/graft/vfs"
)

// Writer streams events into a new log (O_EXCL); Close fsyncs the file and
// the directory. For generators and importers that write more than fits in
// memory. Seqs are assigned from 1 when zero and checked otherwise. The
// Writer holds the session's lock (locks/<id>.lock) from CreateWriter to
// Close or Abort: the log is being created all that time, and a commit into
// its id, or the recovery scan of a record naming it, must leave it alone.
type Writer struct {
	s    *Store
	f    vfs.File
	bw   *bufio.Writer
	path string
	next int64
	err  error
	lock Unlocker
	id   string
}

// CreateWriter creates id exclusively and returns a Writer for it. It
// waits for the session's lock first (Store.LockWait).
func (s *Store) CreateWriter(id string) (*Writer, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	l, err := s.lockSession(id)
	if err != nil {
		return nil, err
	}
	path := s.Path(id)
	f, err := s.FS.Create(path, FileMode)
	if err != nil {
		return nil, unlockAfter(l, id, translate(path, err))
	}
	// Held until Close: an Append meanwhile would take the half-written
	// tail for a torn one and cut it.
	if err := lockNew(f); err != nil {
		return nil, unlockAfter(l, id, vfs.CloseAfter(f, err))
	}
	return &Writer{s: s, f: f, bw: bufio.NewWriterSize(f, 1<<20), path: path, next: 1, lock: l, id: id}, nil
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

// Close flushes, fsyncs the file and its directory, and releases the
// session's lock. After an error the file is left as it is (a partial log a
// later scan reports), never removed here: Abort removes it.
func (w *Writer) Close() error {
	return unlockAfter(w.lock, w.id, w.close())
}

func (w *Writer) close() error {
	if w.err != nil {
		return vfs.CloseAfter(w.f, w.err)
	}
	if err := w.bw.Flush(); err != nil {
		return vfs.CloseAfter(w.f, fmt.Errorf("session: writing %s: %w", w.path, err))
	}
	if err := w.f.Sync(); err != nil {
		return vfs.CloseAfter(w.f, fmt.Errorf("session: fsync %s: %w", w.path, err))
	}
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", w.path, err)
	}
	if err := w.s.FS.SyncDir(w.s.dir); err != nil {
		return fmt.Errorf("session: fsync directory %s: %w", w.s.dir, err)
	}
	return nil
}

// CloseOrRemove is Close, except that when it fails the log is removed
// (Abort), keeping none of it: for a run that must be all or nothing.
func (w *Writer) CloseOrRemove() error {
	err := w.close()
	if err == nil {
		return unlockAfter(w.lock, w.id, nil)
	}
	return unlockAfter(w.lock, w.id, w.remove(fmt.Errorf("%w (the new log %s was removed: none of its %d event(s) was kept)", err, w.path, w.Events())))
}

// Abort gives the log up: nothing buffered is written, the file is closed
// and removed, the directory fsynced and the session's lock released. The
// Writer created the log and held its lock and its flock throughout, so
// nothing but its own events is lost. For a run that failed and must keep
// none of what it wrote (an import whose cursor never covered the log).
func (w *Writer) Abort() error {
	var err error
	if cerr := w.f.Close(); cerr != nil {
		err = fmt.Errorf("session: closing %s: %w", w.path, cerr)
	}
	return unlockAfter(w.lock, w.id, w.remove(err))
}

// remove deletes the log (closed already) and fsyncs the directory; cause
// (nil or not) is returned with what failed.
func (w *Writer) remove(cause error) error {
	if err := w.s.FS.Remove(w.path); err != nil {
		return errors.Join(cause, fmt.Errorf("session: removing the new log %s failed too: %w; it may hold part of its events", w.path, err))
	}
	if err := w.s.FS.SyncDir(w.s.dir); err != nil {
		return errors.Join(cause, fmt.Errorf("session: fsync directory %s after removing %s: %w", w.s.dir, w.path, err))
	}
	return cause
}
