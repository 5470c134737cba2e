package foldcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// The seq marks: where every index.MarkEvery-th event starts (mark k is
// the event with seq k·K+1), so that recall seeks to the nearest mark at
// or before a seq and reads forward at most K-1 lines, whatever the length
// of the session. The fold that stores a scan index writes the marks of
// the events it read, after those already in the file, to index/<id>.seq:
// their one home, which recall reads without opening the catalog (a bbolt
// open and the JSON of thousands of marks cost more than the recall
// itself). The file's format and checks are the index package's
// (index/doc.go). A file that is missing or does not fit the log is not
// used: recall then reads the log from its start. Whatever the file says,
// recall checks the mark against the log: the byte before it is a
// newline, every line it skips starts with the next seq, and the line it
// decodes has the seq asked for; anything else reads the log from its
// start instead.

// extendSeqMarks returns the marks before from (read back from the seq
// file) followed by tail, the marks a fold read from from on. Marks that
// are missing or do not continue into tail are dropped: the file then
// starts at tail, and recall reads earlier seqs from the log's start until
// a fold reads the whole log again.
func (c *Cache) extendSeqMarks(source string, dev, ino uint64, from session.ScanFrom, tail []index.SeqMark) []index.SeqMark {
	if from.Offset == 0 {
		return tail
	}
	prev, _, err := index.LoadSeq(c.Store.FS, c.Home, source, dev, ino)
	if err != nil {
		// A cache: the new file starts at tail.
		c.degrade("the seq cache %s could not be read (its marks before seq %d are dropped: recall reads those seqs from the log's start): %v", index.SeqPath(c.Home, source), from.NextSeq, err)
		prev = nil
	}
	return index.Extend(prev, from.Offset, from.NextSeq, tail)
}

// RecallPath says how Recall found an event: from which mark, how far it
// read, and why it read the log from its start when it did.
type RecallPath struct {
	// Index is where the mark came from: "cache" (index/<id>.seq), or ""
	// when reading started at the start of the log.
	Index string         `json:"index,omitempty"`
	Mark  *index.SeqMark `json:"mark,omitempty"`
	// Skipped is how many lines and bytes were passed over to reach seq.
	SkippedLines int   `json:"skippedLines"`
	SkippedBytes int64 `json:"skippedBytes"`
	// FullScan says why the whole log up to seq was decoded: no usable
	// index, or a check against the log failed.
	FullScan string `json:"fullScan,omitempty"`
}

// Recall returns the event at seq of any session, retired ones included,
// and says how it was found. It seeks to the nearest seq mark and reads
// forward; without a usable index it reads the log from its start. ctx is
// checked before the read and, on a read of the whole log, as it goes.
func (c *Cache) Recall(ctx context.Context, id string, seq int64) (*session.Event, RecallPath, error) {
	if err := session.ValidID(id); err != nil {
		return nil, RecallPath{}, err
	}
	if err := Cancelled(ctx, fmt.Sprintf("recall of %s seq %d", id, seq)); err != nil {
		return nil, RecallPath{}, err
	}
	if seq < 1 {
		return nil, RecallPath{}, fmt.Errorf("%w: seq %d (seqs start at 1)", ErrNoSuchSeq, seq)
	}
	f, fi, err := c.Store.OpenLog(id)
	if err != nil {
		return nil, RecallPath{}, err
	}
	ev, path, err := c.recallIndexed(id, seq, f, fi.Size(), fi)
	if cerr := f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
	}
	if err != nil || ev != nil {
		return ev, path, err
	}
	ev, err = c.recallFromStart(ctx, id, seq)
	return ev, path, err
}

// recallIndexed looks for seq from its nearest mark. A nil event with a
// nil error means: read the log from its start (path.FullScan says why).
func (c *Cache) recallIndexed(id string, seq int64, f vfs.File, size int64, fi fs.FileInfo) (*session.Event, RecallPath, error) {
	var path RecallPath
	dev, ino, ok := index.FileIdentity(fi)
	if !ok {
		path.FullScan = "this platform gives no file identity (dev/ino) to check an index against"
		return nil, path, nil
	}
	mark, reason := c.findMark(id, seq, dev, ino)
	if reason != "" {
		path.FullScan = reason
		return nil, path, nil
	}
	path.Index, path.Mark = "cache", &mark
	if mark.Offset > size {
		path.FullScan = fmt.Sprintf("mark seq %d at byte %d is past the end of the log (%d bytes)", mark.Seq, mark.Offset, size)
		return nil, path, nil
	}
	if mark.Offset > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], mark.Offset-1); err != nil {
			return nil, path, fmt.Errorf("graft: reading %s: %w", f.Name(), err)
		}
		if b[0] != '\n' {
			path.FullScan = fmt.Sprintf("mark seq %d at byte %d does not start a line", mark.Seq, mark.Offset)
			return nil, path, nil
		}
	}
	off, line, skipped, reason, err := skipLines(f, mark, seq)
	path.SkippedLines, path.SkippedBytes = skipped, off-mark.Offset
	if err != nil || reason != "" {
		path.FullScan = reason
		return nil, path, err
	}
	var found *session.Event
	logPath := c.Store.Path(id)
	_, err = session.Scan(io.NewSectionReader(f, off, math.MaxInt64-off), logPath, session.ScanFrom{Offset: off, Line: line, NextSeq: seq}, func(ev *session.Event, _ []byte, _ int64) error {
		e := *ev
		found = &e
		return errFound
	})
	if found != nil {
		return found, path, nil
	}
	// Past the last line, or a line that is not the one the marks promised:
	// the read from the start decides, and words the error.
	if err == nil {
		path.FullScan = fmt.Sprintf("no complete line at byte %d where seq %d should start", off, seq)
	} else {
		path.FullScan = fmt.Sprintf("the line at byte %d is not seq %d: %v", off, seq, err)
	}
	return nil, path, nil
}

// findMark returns the nearest mark at or before seq from the seq file;
// reason says why there is none. A file that cannot be read is a reason
// (and a note: TakeDegraded), never an error: the log is the truth, and
// recall reads it instead.
func (c *Cache) findMark(id string, seq int64, dev, ino uint64) (index.SeqMark, string) {
	m, reason, err := index.FindMark(c.Store.FS, c.Home, id, seq, dev, ino)
	if err != nil {
		c.degrade("recall of %s seq %d read the log from its start: the seq cache %s could not be read: %v", id, seq, index.SeqPath(c.Home, id), err)
		return index.SeqMark{}, fmt.Sprintf("the seq cache could not be read (%v)", err)
	}
	return m, reason
}

// skipLines passes over the lines from mark to the one of seq and returns
// where that one starts. Each line passed over must start with
// {"seq":<the next seq>, as every line graft writes does; reason is
// non-empty when one does not, or when the log ends first. The lines
// passed over are not decoded: that is the point of the index.
func skipLines(r io.ReaderAt, mark index.SeqMark, seq int64) (off int64, line int, skipped int, reason string, err error) {
	const maxPrefix = int64(len(`{"seq":`) + 20 + 1)
	off, line = mark.Offset, mark.Line
	buf := make([]byte, 64<<10)
	bufStart, n := int64(0), 0
	fill := func(at int64) error {
		k, err := r.ReadAt(buf, at)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("graft: reading the log at byte %d: %w", at, err)
		}
		bufStart, n = at, k
		return nil
	}
	var prefix []byte
	for want := mark.Seq; want < seq; want++ {
		if off < bufStart || off+maxPrefix > bufStart+int64(n) {
			if err := fill(off); err != nil {
				return off, line, skipped, "", err
			}
		}
		prefix = append(strconv.AppendInt(append(prefix[:0], `{"seq":`...), want, 10), ',')
		if !bytes.HasPrefix(buf[off-bufStart:n], prefix) {
			if n == 0 {
				return off, line, skipped, fmt.Sprintf("the log ends at byte %d, before seq %d", off, seq), nil
			}
			return off, line, skipped, fmt.Sprintf("the line at byte %d does not start with %s", off, prefix), nil
		}
		pos := off + int64(len(prefix))
		for {
			if pos >= bufStart+int64(n) {
				if err := fill(pos); err != nil {
					return off, line, skipped, "", err
				}
				if n == 0 {
					return off, line, skipped, fmt.Sprintf("the line of seq %d at byte %d has no newline", want, off), nil
				}
			}
			if i := bytes.IndexByte(buf[pos-bufStart:n], '\n'); i >= 0 {
				pos += int64(i) + 1
				break
			}
			pos = bufStart + int64(n)
		}
		off = pos
		line++
		skipped++
	}
	return off, line, skipped, "", nil
}

// recallFromStart is the read of the whole log up to seq.
func (c *Cache) recallFromStart(ctx context.Context, id string, seq int64) (*session.Event, error) {
	var found *session.Event
	var seen int64
	res, err := c.Store.Scan(id, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if seen++; seen%CheckEvents == 0 {
			if err := Cancelled(ctx, fmt.Sprintf("recall of %s seq %d", id, seq)); err != nil {
				return err
			}
		}
		if ev.Seq == seq {
			e := *ev
			found = &e
			return errFound
		}
		return nil
	})
	if found != nil {
		return found, nil
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: %s has seqs 1..%d, not %d", ErrNoSuchSeq, id, res.LastSeq, seq)
}
