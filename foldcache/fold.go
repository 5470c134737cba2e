package foldcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/vfs"
)

// Incremental prepare. A fold of a source ends by storing a scan index in
// the catalog (index.ScanIndex, in bucket scanindex): where it stopped (a
// line boundary), the log's dev and ino, the tail check of the bytes
// before that offset, and the fold there (index.EncodeScanState of the
// state fold's and the tape builder's snapshots). It stores the seq marks
// of the events it read in index/<id>.seq too (seq.go). The formats
// and their checks are the index package's (index/doc.go).
//
// The next fold of that source (prepare, or commit's drift rebuild) uses
// the index only when it fits the open log (index.ScanIndex.Fits: the same
// dev and ino, at least Offset bytes, the same tail check) and its state
// restores to its position: a log replaced, rewritten by copy or truncated
// is never trusted. It then restores the fold and reads only the bytes
// past Offset. The builder's snapshot carries the running and prefix hash
// states, so the prefix hash still covers every byte before the boundary.
// An index that is not used is reported in the review's warnings, and the
// whole log is read.

// Fold is one fold of a source: the tape builder and the state fold at
// its end, and how the log was read.
type Fold struct {
	Builder *tape.Builder
	Info    *session.Info
	// From is where reading started: the zero value, or a valid index's
	// position.
	From session.ScanFrom
	// NotUsed says why an existing scan index was not used; "" when there
	// was none or it was used.
	NotUsed string
	// Saved reports whether this fold stored a new index.
	Saved bool
	// NotSaved says why the fold could not store its indexes (catalog.db
	// or index/ not writable, busy or damaged); "" when it stored them or
	// had no need to. The fold itself is whole either way.
	NotSaved string
	// seal identifies the bytes folded (no Info yet); nil without a file
	// identity or after a torn last line.
	seal *index.Seal
}

// Fold folds the log of source, resuming from its scan index when the
// index is valid, and stores a new index when it read enough. It checks
// ctx every CheckEvents events or CheckBytes bytes.
func (c *Cache) Fold(ctx context.Context, source string) (*Fold, error) {
	return c.FoldThen(ctx, source, nil)
}

// FoldThen is Fold calling then, when the fold succeeded, with the log
// still open: the tape reads the outputs it quotes from the very file it
// folded (LogOutputs).
func (c *Cache) FoldThen(ctx context.Context, source string, then func(fo *Fold, f vfs.File) error) (*Fold, error) {
	f, fi, err := c.Store.OpenLog(source)
	if err != nil {
		return nil, err
	}
	fo, err := c.foldOpen(ctx, source, f, fi)
	if err == nil && then != nil {
		err = then(fo, f)
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("graft: closing %s: %w", f.Name(), cerr)
	}
	return fo, err
}

// Built is one fold of a source and the tape built from it.
type Built struct {
	Tape *tape.Tape
	Info *session.Info
	// seal identifies the source bytes the tape was built from (Info not
	// filled in); nil when they cannot be identified.
	seal *index.Seal
	// NotSaved says why the fold's indexes were not stored ("": stored,
	// or no need); the tape's warnings say it too.
	NotSaved string
}

// Build folds the source once, feeding the tape builder and the state
// fold: from its scan index when that is valid, so a grown session costs
// its new tail. The tape is built with opts and leftovers, quoting the
// outputs from the log it folded; what the fold could not use or store is
// in its warnings. It checks ctx as Fold does.
func (c *Cache) Build(ctx context.Context, source string, opts tape.Options, leftovers []tape.Leftover) (*Built, error) {
	var t *tape.Tape
	fo, err := c.FoldThen(ctx, source, func(fo *Fold, f vfs.File) error {
		var err error
		t, err = fo.Builder.BuildFrom(opts, leftovers, LogOutputs{F: f, Path: c.Store.Path(source)})
		return err
	})
	if err != nil {
		return nil, err
	}
	res := fo.Info.ScanResult
	if res.Torn != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("the source has a torn last line (%d bytes at offset %d), ignored", res.Torn.Bytes, res.Torn.Offset))
	}
	if fo.NotUsed != "" {
		t.Warnings = append(t.Warnings, fmt.Sprintf("the scan index of %s was not used (%s): read the whole log", source, fo.NotUsed))
	}
	if fo.NotSaved != "" {
		t.Warnings = append(t.Warnings, fmt.Sprintf("the indexes of %s were not stored (%s): the next prepare reads the whole log again", source, fo.NotSaved))
	}
	return &Built{Tape: t, Info: fo.Info, seal: fo.seal, NotSaved: fo.NotSaved}, nil
}

// LogOutputs reads tool outputs from a session log for the tape
// (tape.Outputs): the line at an offset the fold recorded, decoded. F is
// the open log, Path its name for errors.
type LogOutputs struct {
	F    vfs.File
	Path string
}

func (o LogOutputs) Output(seq, off int64, size int) (string, error) {
	ev, err := o.read(seq, off, size)
	if err != nil {
		return "", err
	}
	return ev.Tool.Output, nil
}

func (o LogOutputs) Input(seq, off int64, size int) (json.RawMessage, error) {
	ev, err := o.read(seq, off, size)
	if err != nil {
		return nil, err
	}
	return ev.Tool.Input, nil
}

// read decodes the tool event seq from its line, size bytes at off.
func (o LogOutputs) read(seq, off int64, size int) (*session.Event, error) {
	buf := make([]byte, size)
	if _, err := o.F.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("graft: %s: reading seq %d at offset %d: %w", o.Path, seq, off, err)
	}
	var ev session.Event
	if err := session.Decode(buf, &ev); err != nil {
		return nil, fmt.Errorf("graft: %s: the line of seq %d at offset %d does not decode: %w", o.Path, seq, off, err)
	}
	if ev.Seq != seq || ev.Tool == nil {
		return nil, fmt.Errorf("graft: %s: the line at offset %d is seq %d, not the tool event seq %d the fold read there", o.Path, off, ev.Seq, seq)
	}
	return &ev, nil
}

func (c *Cache) foldOpen(ctx context.Context, source string, f vfs.File, fi os.FileInfo) (*Fold, error) {
	path := c.Store.Path(source)
	dev, ino, haveIdentity := index.FileIdentity(fi)
	fo := &Fold{}
	var stored index.ScanIndex
	var haveIndex bool
	err := c.Catalog().View(func(db *catalog.DB) error {
		var err error
		stored, haveIndex, err = db.GetScanIndex(source)
		return err
	})
	// The index is a hint: one that cannot be read means reading the
	// whole log. When the catalog itself could not be read, storing a new
	// index would fail too (or wait for a busy catalog again): skip it.
	catalogUnread := false
	if err != nil {
		haveIndex = false
		fo.NotUsed = "catalog.db not read: " + catalog.Problem(err)
		catalogUnread = !errors.Is(err, catalog.ErrCorruptValue)
		c.degrade("the scan index of %s was not used, the whole log was read: %s", source, fo.NotUsed)
	}
	var prevEvents int
	if haveIndex {
		b, info, reason, err := resumeFrom(stored, source, f, fi.Size(), dev, ino, haveIdentity)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			fo.NotUsed = reason
		} else {
			fo.Builder, fo.Info = b, info
			fo.From = session.ScanFrom{Offset: stored.Offset, Line: stored.Line, NextSeq: stored.NextSeq}
			prevEvents = info.Events
		}
	}
	if fo.Builder == nil {
		fo.Builder, fo.Info = tape.NewBuilder(source), &session.Info{ID: source}
	}
	marks := index.NewCollector(fo.From.Line, fo.From.NextSeq)
	var seen, read int64
	res, err := scanFold(f, path, fo.From, func(ev *session.Event, size int, sum session.LineSum, off int64) error {
		// The fold is the long part of a prepare: ctx is checked every
		// CheckEvents events or CheckBytes bytes.
		seen++
		read += int64(size)
		if seen%CheckEvents == 0 || read >= CheckBytes {
			read = 0
			if c.FoldHook != nil {
				c.FoldHook(source, seen)
			}
			if err := Cancelled(ctx, "prepare of "+source); err != nil {
				return err
			}
		}
		marks.See(ev.Seq, off)
		fo.Info.Add(ev)
		return fo.Builder.AddSumAt(ev, size, sum, off)
	})
	if err != nil {
		return nil, err
	}
	res.Events += prevEvents
	fo.Info.ScanResult = res
	if haveIdentity && res.Torn == nil {
		if fo.seal, err = index.NewSeal(f, dev, ino, res.End, res.LastSeq); err != nil {
			return nil, fmt.Errorf("graft: sealing the fold of %s: %w", source, err)
		}
	}
	if !catalogUnread && (fo.From.Offset == 0 || res.End-fo.From.Offset >= c.SaveTail) {
		if err := c.saveIndexes(source, f, dev, ino, haveIdentity, fo, marks.Marks()); err != nil {
			// A cache not stored costs the next fold a longer read; the
			// fold in hand is whole.
			fo.NotSaved = err.Error() + catalog.Advice(err)
			c.degrade("the indexes of %s were not stored (the next prepare or audit reads the whole log again): %s", source, fo.NotSaved)
		}
	}
	return fo, nil
}

// scanFold reads f from from.Offset with the fold decoder: the tape and the
// state fold never read the output of a successful tool call.
func scanFold(f vfs.File, path string, from session.ScanFrom, fn func(ev *session.Event, size int, sum session.LineSum, off int64) error) (session.ScanResult, error) {
	return session.ScanFoldSums(io.NewSectionReader(f, from.Offset, math.MaxInt64-from.Offset), path, from, fn)
}

// resumeFrom checks a stored index against the open log and restores its
// fold. reason says why the index cannot be used; err is an I/O failure.
func resumeFrom(ix index.ScanIndex, source string, f io.ReaderAt, size int64, dev, ino uint64, haveIdentity bool) (*tape.Builder, *session.Info, string, error) {
	if reason, err := ix.Fits(f, source, size, dev, ino, haveIdentity); reason != "" || err != nil {
		return nil, nil, reason, err
	}
	infoState, tapeState, reason := index.DecodeScanState(ix.State)
	if reason != "" {
		return nil, nil, reason, nil
	}
	b, err := tape.Restore(tapeState)
	if err != nil {
		return nil, nil, err.Error(), nil
	}
	info, err := session.RestoreInfo(infoState)
	if err != nil {
		return nil, nil, err.Error(), nil
	}
	last := ix.NextSeq - 1
	if b.SessionID() != source || info.ID != source || b.LastSeq() != last || info.LastSeq != last || info.End != ix.Offset {
		return nil, nil, fmt.Sprintf("its state (session %q/%q, seq %d/%d, offset %d) does not match its position (seq %d, offset %d)",
			b.SessionID(), info.ID, b.LastSeq(), info.LastSeq, info.End, last, ix.Offset), nil
	}
	return b, info, "", nil
}

// saveIndexes stores the scan index at the end of fo in the catalog and
// the seq marks, extended with marks (those of the events fo read), in
// index/<id>.seq.
func (c *Cache) saveIndexes(source string, f vfs.File, dev, ino uint64, haveIdentity bool, fo *Fold, marks []index.SeqMark) error {
	if !haveIdentity {
		return nil // nothing to validate an index against; see resumeFrom
	}
	res := fo.Info.ScanResult
	var check string
	if fo.seal != nil && fo.seal.End == res.End {
		check = fo.seal.Check // the same 4 KiB, hashed once
	} else {
		var err error
		if check, err = index.TailCheck(f, res.End); err != nil {
			return fmt.Errorf("graft: storing the scan index of %s: %w", source, err)
		}
	}
	tapeState, err := fo.Builder.Snapshot()
	if err != nil {
		return err
	}
	infoState, err := fo.Info.Snapshot()
	if err != nil {
		return err
	}
	state, err := index.EncodeScanState(infoState, tapeState)
	if err != nil {
		return fmt.Errorf("graft: encoding the scan state of %s: %w", source, err)
	}
	all := c.extendSeqMarks(source, dev, ino, fo.From, marks)
	// One line per event: the next line's number follows from the events
	// read since From.
	line := max(fo.From.Line, 1) + int(res.LastSeq+1-max(fo.From.NextSeq, 1))
	ix := index.ScanIndex{Session: source, Dev: dev, Ino: ino, Offset: res.End, Line: line, NextSeq: res.LastSeq + 1, Check: check, State: state}
	err = c.Catalog().With(func(db *catalog.DB) error { return db.PutScanIndex(ix) })
	if err != nil {
		return fmt.Errorf("graft: storing the indexes of %s: %w", source, err)
	}
	if err := index.NewWriter(c.Store.FS, c.Home).WriteSeq(source, dev, ino, all); err != nil {
		return err
	}
	fo.Saved = true
	return nil
}
